// CPU kernels for 3-D convolution and pooling (NDHWC; NCDHW through a transpose, as
// TensorFlow's CPU takes both): Conv3D (im2col + gemm), its gradient ops Conv3DBackpropInputV2
// (Keras' Conv3DTranspose forward op) and Conv3DBackpropFilterV2, MaxPool3D, AvgPool3D and
// their gradient ops MaxPool3DGrad and AvgPool3DGrad. SAME / VALID padding, strides and (for
// the convolutions) dilations; the window geometry is conv_util.h's PatchGeometry<3>.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

using Dims = std::vector<int64_t>;
using Geometry = PatchGeometry<3>;

// The attrs of the 3-D ops, with strides / dilations / ksize in NDHWC order.
struct Attrs3D {
  Dims strides, dilations = {1, 1, 1, 1, 1}, ksize;
  std::string padding, format;
  bool ncdhw = false;

  Status Read(const Node& node, bool pool) {
    const std::string& op = node.type();
    GRAFT_RETURN_IF_ERROR(GetAttr(node, "strides", &strides));
    GRAFT_RETURN_IF_ERROR(GetAttr(node, "padding", &padding));
    GRAFT_RETURN_IF_ERROR(GetAttr(node, "data_format", &format));
    if (pool) {
      GRAFT_RETURN_IF_ERROR(GetAttr(node, "ksize", &ksize));
      if (ksize.size() != 5) return errors::InvalidArgument(op, ": ksize must have 5 entries, got ", ksize.size());
    } else if (node.attr("dilations") != nullptr) {
      GRAFT_RETURN_IF_ERROR(GetAttr(node, "dilations", &dilations));
    }
    if (strides.size() != 5) return errors::InvalidArgument(op, ": sliding window strides field must specify 5 dimensions");
    if (dilations.size() != 5) return errors::InvalidArgument(op, ": dilation rates field must specify 5 dimensions");
    if (format != "NDHWC" && format != "NCDHW") {
      return errors::InvalidArgument(op, ": invalid data_format ", format, " (NDHWC or NCDHW)");
    }
    if (padding != "SAME" && padding != "VALID") return errors::InvalidArgument(op, ": invalid padding ", padding);
    ncdhw = format == "NCDHW";
    if (ncdhw) {
      strides = NhwcOrder(strides);
      dilations = NhwcOrder(dilations);
      if (pool) ksize = NhwcOrder(ksize);
    }
    if (strides[0] != 1 || strides[4] != 1) {
      return errors::InvalidArgument(op, ": current implementation does not yet support strides in the batch and depth "
                                     "dimensions.");
    }
    if (dilations[0] != 1 || dilations[4] != 1) {
      return errors::InvalidArgument(op, ": current implementation does not yet support dilations in the batch and "
                                     "depth dimensions.");
    }
    if (pool && (ksize[0] != 1 || ksize[4] != 1)) {
      return errors::Unimplemented(op, ": pooling is not yet supported on the batch or depth dimensions.");
    }
    for (int d = 1; d <= 3; ++d) {
      if (strides[d] < 1) return errors::InvalidArgument(op, ": strides must be positive");
      if (dilations[d] < 1) return errors::InvalidArgument(op, ": dilations must be positive");
      if (pool && ksize[d] < 1) return errors::InvalidArgument(op, ": ksize must be positive");
      GRAFT_RETURN_IF_ERROR(CheckInt32Attr(op, "strides", strides[static_cast<size_t>(d)]));
      GRAFT_RETURN_IF_ERROR(CheckInt32Attr(op, "dilations", dilations[static_cast<size_t>(d)]));
      if (pool) GRAFT_RETURN_IF_ERROR(CheckInt32Attr(op, "ksize", ksize[static_cast<size_t>(d)]));
    }
    return Status::Ok();
  }

  // The geometry of input [n, d, h, w, c] (NDHWC) under window k (3 spatial sizes).
  Status Make(const std::string& op, const Dims& in, const int64_t* k, int64_t oc, Geometry* g) const {
    *g = Geometry{};
    g->n = in[0];
    g->c = in[4];
    g->oc = oc;
    for (int d = 0; d < 3; ++d) {
      g->in[d] = in[d + 1];
      g->k[d] = k[d];
      g->stride[d] = strides[d + 1];
      g->dil[d] = dilations[d + 1];
    }
    GRAFT_RETURN_IF_ERROR(g->Resolve(padding));
    if (g->cols() > INT32_MAX || oc > INT32_MAX || g->rows() > INT32_MAX) {
      return errors::InvalidArgument(op, ": too large for BLAS");
    }
    return Status::Ok();
  }
  Dims OutDims(const Geometry& g) const { return {g.n, g.out[0], g.out[1], g.out[2], g.oc}; }
};

Status CheckRank5(const std::string& op, const Tensor& t, const char* what) {
  if (t.rank() != 5) return errors::InvalidArgument(op, ": ", what, " must be 5-dimensional, got ", ShapeText(t.dims()));
  return Status::Ok();
}

// t in NDHWC: t itself, or its transpose (kept in holder) when the op is NCDHW.
template <typename T>
Status ChannelsLast(const Tensor& t, bool ncdhw, Tensor* holder, const Tensor** out) {
  if (!ncdhw) {
    *out = &t;
    return Status::Ok();
  }
  GRAFT_RETURN_IF_ERROR(Relayout<T>(t, false, holder));
  *out = holder;
  return Status::Ok();
}

// Allocates output 0 of NDHWC dims (computed into *nhwc), and after the computation puts it
// in the op's layout (Finish).
template <typename T>
class LayoutOutput {
 public:
  LayoutOutput(OpKernelContext& ctx, bool ncdhw, DType dtype) : ctx_(ctx), ncdhw_(ncdhw), dtype_(dtype) {}
  Status Allocate(const Dims& ndhwc, T** data) {
    if (ncdhw_) {
      GRAFT_RETURN_IF_ERROR(Tensor::Allocate(dtype_, ndhwc, &temp_));
      *data = temp_.data<T>();
    } else {
      Tensor* out = nullptr;
      GRAFT_RETURN_IF_ERROR(ctx_.AllocateOutput(0, dtype_, ndhwc, &out));
      *data = out->data<T>();
      std::fill_n(*data, out->num_elements(), T(0));
    }
    return Status::Ok();
  }
  Status Finish() {
    if (!ncdhw_) return Status::Ok();
    Tensor z;
    GRAFT_RETURN_IF_ERROR(Relayout<T>(temp_, true, &z));
    ctx_.SetOutput(0, std::move(z));
    return Status::Ok();
  }

 private:
  OpKernelContext& ctx_;
  bool ncdhw_;
  DType dtype_;
  Tensor temp_;
};

// A 5-entry shape vector input (int32, or int64 for Conv3DBackpropInputV2's Tshape), in the
// op's layout; returned in NDHWC order.
Status ReadShape5(const std::string& op, const Tensor& t, const char* what, bool ncdhw, Dims* out) {
  if (t.rank() != 1 || t.num_elements() != 5) {
    return errors::InvalidArgument(op, ": ", what, " must be 1-dimensional and 5 elements, got shape ",
                                   ShapeText(t.dims()));
  }
  if (t.dtype() == DType::kInt64) {
    out->assign(t.data<int64_t>(), t.data<int64_t>() + 5);
  } else {
    out->assign(t.data<int32_t>(), t.data<int32_t>() + 5);
  }
  for (int64_t d : *out) {
    if (d < 0) return errors::InvalidArgument(op, ": ", what, " ", ShapeText(*out), " has a negative dimension");
  }
  if (ncdhw) *out = NhwcOrder(*out);
  return Status::Ok();
}

int64_t BlockRows(const Geometry& g) {
  return std::max<int64_t>(1, std::min<int64_t>(g.rows(), (int64_t{1} << 22) / std::max<int64_t>(g.cols(), 1)));
}

Status CheckDepth(const std::string& op, int64_t input_depth, int64_t filter_depth) {
  if (input_depth == filter_depth) return Status::Ok();
  return errors::InvalidArgument(op, ": input and filter must have the same depth: ", input_depth, " vs ",
                                 filter_depth);
}

// Rows [r0, r0 + rows) of im2col(x) into col (rows x g.cols()): the cells each output
// position's window reads, zeros where the window leaves the input.
template <typename T>
void Patches(const Geometry& g, const T* px, int64_t r0, int64_t rows, T* col) {
  const int64_t k = g.cols();
  std::fill(col, col + rows * k, T(0));
  for (int64_t r = 0; r < rows; ++r) {
    T* dst = col + r * k;
    g.ForTaps(r0 + r, [&](int64_t in_off, int64_t col_off) { std::copy_n(px + in_off, g.c, dst + col_off); });
  }
}

// ---------------------------------------------------------------------------------------
// Conv3D: out[rows, oc] = im2col(x)[rows, taps * c] * filter[taps * c, oc].

template <typename T>
class Conv3DKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return attrs_.Read(node(), false); }
  Status Compute(OpKernelContext& ctx) const override {
    const std::string& op = node().type();
    GRAFT_RETURN_IF_ERROR(CheckRank5(op, ctx.input(0), "input"));
    GRAFT_RETURN_IF_ERROR(CheckRank5(op, ctx.input(1), "filter"));
    Tensor xt;
    const Tensor* x = nullptr;
    GRAFT_RETURN_IF_ERROR(ChannelsLast<T>(ctx.input(0), attrs_.ncdhw, &xt, &x));
    const Tensor& f = ctx.input(1);
    GRAFT_RETURN_IF_ERROR(CheckDepth(op, x->dim(4), f.dim(3)));
    Geometry g;
    GRAFT_RETURN_IF_ERROR(attrs_.Make(op, x->dims(), f.dims().data(), f.dim(4), &g));
    LayoutOutput<T> result(ctx, attrs_.ncdhw, f.dtype());
    T* po = nullptr;
    GRAFT_RETURN_IF_ERROR(result.Allocate(attrs_.OutDims(g), &po));
    const int64_t k = g.cols(), rows_total = g.rows();
    if (k > 0 && rows_total > 0 && g.oc > 0) {
      const T* px = x->data<T>();
      const T* pf = f.data<T>();
      const int64_t block = BlockRows(g);
      std::vector<T> col(static_cast<size_t>(block * k));
      for (int64_t r0 = 0; r0 < rows_total; r0 += block) {
        const int64_t rows = std::min(block, rows_total - r0);
        Patches(g, px, r0, rows, col.data());
        GemmRowMajor<T>(false, false, rows, g.oc, k, col.data(), k, pf, g.oc, false, po + r0 * g.oc, g.oc);
      }
    }
    return result.Finish();
  }

 private:
  Attrs3D attrs_;
};

Status CheckOutBackprop(const std::string& op, const Dims& want, const Tensor& dy) {
  if (dy.dims() != want) {
    return errors::InvalidArgument(op, ": out_backprop shape ", ShapeText(dy.dims()),
                                   " does not match the computed output shape ", ShapeText(want));
  }
  return Status::Ok();
}

// Conv3DBackpropInputV2(input_sizes, filter, dy): dx = col2im(dy * filter^T).
template <typename T>
class Conv3DBackpropInputKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return attrs_.Read(node(), false); }
  Status Compute(OpKernelContext& ctx) const override {
    const std::string& op = node().type();
    const Tensor& f = ctx.input(1);
    GRAFT_RETURN_IF_ERROR(CheckRank5(op, f, "filter"));
    GRAFT_RETURN_IF_ERROR(CheckRank5(op, ctx.input(2), "out_backprop"));
    Dims in_dims;
    GRAFT_RETURN_IF_ERROR(ReadShape5(op, ctx.input(0), "input_sizes", attrs_.ncdhw, &in_dims));
    GRAFT_RETURN_IF_ERROR(CheckDepth(op, in_dims[4], f.dim(3)));
    Tensor dyt;
    const Tensor* dy = nullptr;
    GRAFT_RETURN_IF_ERROR(ChannelsLast<T>(ctx.input(2), attrs_.ncdhw, &dyt, &dy));
    Geometry g;
    GRAFT_RETURN_IF_ERROR(attrs_.Make(op, in_dims, f.dims().data(), f.dim(4), &g));
    GRAFT_RETURN_IF_ERROR(CheckOutBackprop(op, attrs_.OutDims(g), *dy));
    LayoutOutput<T> result(ctx, attrs_.ncdhw, f.dtype());
    T* dx = nullptr;
    GRAFT_RETURN_IF_ERROR(result.Allocate(in_dims, &dx));
    const int64_t k = g.cols(), rows_total = g.rows();
    if (k > 0 && rows_total > 0 && g.oc > 0) {
      const T* pf = f.data<T>();
      const T* pg = dy->data<T>();
      const int64_t block = BlockRows(g);
      std::vector<T> col(static_cast<size_t>(block * k));
      for (int64_t r0 = 0; r0 < rows_total; r0 += block) {
        const int64_t rows = std::min(block, rows_total - r0);
        // col[rows, k] = dy[rows, oc] * filter[k, oc]^T
        GemmRowMajor<T>(false, true, rows, k, g.oc, pg + r0 * g.oc, g.oc, pf, g.oc, false, col.data(), k);
        for (int64_t r = 0; r < rows; ++r) {
          const T* src = col.data() + r * k;
          g.ForTaps(r0 + r, [&](int64_t in_off, int64_t col_off) {
            for (int64_t ch = 0; ch < g.c; ++ch) dx[in_off + ch] += src[col_off + ch];
          });
        }
      }
    }
    return result.Finish();
  }

 private:
  Attrs3D attrs_;
};

// Conv3DBackpropFilterV2(x, filter_sizes, dy): dfilter[taps * c, oc] = im2col(x)^T * dy.
template <typename T>
class Conv3DBackpropFilterKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return attrs_.Read(node(), false); }
  Status Compute(OpKernelContext& ctx) const override {
    const std::string& op = node().type();
    GRAFT_RETURN_IF_ERROR(CheckRank5(op, ctx.input(0), "input"));
    GRAFT_RETURN_IF_ERROR(CheckRank5(op, ctx.input(2), "out_backprop"));
    Dims f_dims;
    GRAFT_RETURN_IF_ERROR(ReadShape5(op, ctx.input(1), "filter_sizes", false, &f_dims));
    Tensor xt, dyt;
    const Tensor *x = nullptr, *dy = nullptr;
    GRAFT_RETURN_IF_ERROR(ChannelsLast<T>(ctx.input(0), attrs_.ncdhw, &xt, &x));
    GRAFT_RETURN_IF_ERROR(ChannelsLast<T>(ctx.input(2), attrs_.ncdhw, &dyt, &dy));
    GRAFT_RETURN_IF_ERROR(CheckDepth(op, x->dim(4), f_dims[3]));
    Geometry g;
    GRAFT_RETURN_IF_ERROR(attrs_.Make(op, x->dims(), f_dims.data(), f_dims[4], &g));
    GRAFT_RETURN_IF_ERROR(CheckOutBackprop(op, attrs_.OutDims(g), *dy));
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, x->dtype(), f_dims, &out));
    T* df = out->data<T>();
    std::fill_n(df, out->num_elements(), T(0));
    const int64_t k = g.cols(), rows_total = g.rows();
    if (k == 0 || rows_total == 0 || g.oc == 0) return Status::Ok();
    const T* px = x->data<T>();
    const T* pg = dy->data<T>();
    const int64_t block = BlockRows(g);
    std::vector<T> col(static_cast<size_t>(block * k));
    for (int64_t r0 = 0; r0 < rows_total; r0 += block) {
      const int64_t rows = std::min(block, rows_total - r0);
      Patches(g, px, r0, rows, col.data());
      GemmRowMajor<T>(true, false, k, g.oc, rows, col.data(), k, pg + r0 * g.oc, g.oc, true, df, g.oc);
    }
    return Status::Ok();
  }

 private:
  Attrs3D attrs_;
};

// ---------------------------------------------------------------------------------------
// Pooling. A window's cells outside the input are ignored: MaxPool3D takes the maximum of the
// cells inside, AvgPool3D divides by their number (TensorFlow's).

// The geometry of a pooling window over x (NDHWC): one "tap" per window cell, c = oc.
Status PoolGeometry(const std::string& op, const Attrs3D& a, const Dims& x, Geometry* g) {
  GRAFT_RETURN_IF_ERROR(a.Make(op, x, a.ksize.data() + 1, x[4], g));
  g->c = x[4];
  return Status::Ok();
}

template <typename T, bool kMax>
class Pool3DKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return attrs_.Read(node(), true); }
  Status Compute(OpKernelContext& ctx) const override {
    const std::string& op = node().type();
    GRAFT_RETURN_IF_ERROR(CheckRank5(op, ctx.input(0), "tensor_in"));
    Tensor xt;
    const Tensor* x = nullptr;
    GRAFT_RETURN_IF_ERROR(ChannelsLast<T>(ctx.input(0), attrs_.ncdhw, &xt, &x));
    Geometry g;
    GRAFT_RETURN_IF_ERROR(PoolGeometry(op, attrs_, x->dims(), &g));
    LayoutOutput<T> result(ctx, attrs_.ncdhw, x->dtype());
    T* po = nullptr;
    GRAFT_RETURN_IF_ERROR(result.Allocate(attrs_.OutDims(g), &po));
    const T* px = x->data<T>();
    const int64_t c = g.c;
    for (int64_t r = 0; r < g.rows(); ++r) {
      T* dst = po + r * c;
      std::fill_n(dst, c, kMax ? std::numeric_limits<T>::lowest() : T(0));
      int64_t count = 0;
      g.ForTaps(r, [&](int64_t in_off, int64_t) {
        ++count;
        const T* src = px + in_off;
        for (int64_t ch = 0; ch < c; ++ch) {
          if constexpr (kMax) {
            if (src[ch] > dst[ch]) dst[ch] = src[ch];
          } else {
            dst[ch] += src[ch];
          }
        }
      });
      if constexpr (!kMax) {
        if (count > 0) {
          for (int64_t ch = 0; ch < c; ++ch) dst[ch] /= static_cast<T>(count);
        }
      }
    }
    return result.Finish();
  }

 private:
  Attrs3D attrs_;
};

// MaxPool3DGrad(orig_input, orig_output, grad): each window's gradient goes to every cell of
// the window within 1e-5 of the window's output (all of them when several are equal), as
// TensorFlow's CPU kernel.
template <typename T>
class MaxPool3DGradKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(attrs_.Read(node(), true));
    if (node().attr("TInput") != nullptr) {
      DType tin = DType::kInvalid;
      GRAFT_RETURN_IF_ERROR(GetAttr(node(), "TInput", &tin));
      if (tin != DTypeOf<T>()) {
        return errors::Unimplemented(node().type(), ": TInput ", DTypeName(tin), " must equal T ",
                                     DTypeName(DTypeOf<T>()));
      }
    }
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    const std::string& op = node().type();
    GRAFT_RETURN_IF_ERROR(CheckRank5(op, ctx.input(0), "tensor_in"));
    GRAFT_RETURN_IF_ERROR(CheckRank5(op, ctx.input(1), "tensor_out"));
    GRAFT_RETURN_IF_ERROR(CheckRank5(op, ctx.input(2), "out_backprop"));
    Tensor xt, yt, dyt;
    const Tensor *x = nullptr, *y = nullptr, *dy = nullptr;
    GRAFT_RETURN_IF_ERROR(ChannelsLast<T>(ctx.input(0), attrs_.ncdhw, &xt, &x));
    GRAFT_RETURN_IF_ERROR(ChannelsLast<T>(ctx.input(1), attrs_.ncdhw, &yt, &y));
    GRAFT_RETURN_IF_ERROR(ChannelsLast<T>(ctx.input(2), attrs_.ncdhw, &dyt, &dy));
    Geometry g;
    GRAFT_RETURN_IF_ERROR(PoolGeometry(op, attrs_, x->dims(), &g));
    const Dims fwd = attrs_.OutDims(g);
    if (y->dims() != fwd) {
      return errors::InvalidArgument(op, ": the shape of tensor_out ", ShapeText(y->dims()),
                                     " must be the forward output shape ", ShapeText(fwd));
    }
    if (dy->dims() != fwd) {
      return errors::InvalidArgument(op, ": the shape of out_backprop ", ShapeText(dy->dims()),
                                     " must be the forward output shape ", ShapeText(fwd));
    }
    LayoutOutput<T> result(ctx, attrs_.ncdhw, x->dtype());
    T* dx = nullptr;
    GRAFT_RETURN_IF_ERROR(result.Allocate(x->dims(), &dx));
    const T* px = x->data<T>();
    const T* py = y->data<T>();
    const T* pg = dy->data<T>();
    const int64_t c = g.c;
    for (int64_t r = 0; r < g.rows(); ++r) {
      g.ForTaps(r, [&](int64_t in_off, int64_t) {
        for (int64_t ch = 0; ch < c; ++ch) {
          if (std::abs(px[in_off + ch] - py[r * c + ch]) < T(1e-5)) dx[in_off + ch] += pg[r * c + ch];
        }
      });
    }
    return result.Finish();
  }

 private:
  Attrs3D attrs_;
};

// AvgPool3DGrad(orig_input_shape, grad): each window's gradient shared equally by its cells
// inside the input.
template <typename T>
class AvgPool3DGradKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return attrs_.Read(node(), true); }
  Status Compute(OpKernelContext& ctx) const override {
    const std::string& op = node().type();
    Dims in_dims;
    GRAFT_RETURN_IF_ERROR(ReadShape5(op, ctx.input(0), "orig_input_shape", attrs_.ncdhw, &in_dims));
    GRAFT_RETURN_IF_ERROR(CheckRank5(op, ctx.input(1), "out_backprop"));
    Tensor dyt;
    const Tensor* dy = nullptr;
    GRAFT_RETURN_IF_ERROR(ChannelsLast<T>(ctx.input(1), attrs_.ncdhw, &dyt, &dy));
    Geometry g;
    GRAFT_RETURN_IF_ERROR(PoolGeometry(op, attrs_, in_dims, &g));
    const Dims fwd = attrs_.OutDims(g);
    if (dy->dims() != fwd) {
      return errors::InvalidArgument(op, ": the shape of out_backprop ", ShapeText(dy->dims()),
                                     " must be the forward output shape ", ShapeText(fwd));
    }
    LayoutOutput<T> result(ctx, attrs_.ncdhw, dy->dtype());
    T* dx = nullptr;
    GRAFT_RETURN_IF_ERROR(result.Allocate(in_dims, &dx));
    const T* pg = dy->data<T>();
    const int64_t c = g.c;
    for (int64_t r = 0; r < g.rows(); ++r) {
      int64_t count = 0;
      g.ForTaps(r, [&](int64_t, int64_t) { ++count; });
      if (count == 0) continue;
      const T inv = T(1) / static_cast<T>(count);
      g.ForTaps(r, [&](int64_t in_off, int64_t) {
        for (int64_t ch = 0; ch < c; ++ch) dx[in_off + ch] += pg[r * c + ch] * inv;
      });
    }
    return result.Finish();
  }

 private:
  Attrs3D attrs_;
};

template <typename T>
using MaxPool3DKernel = Pool3DKernel<T, true>;
template <typename T>
using AvgPool3DKernel = Pool3DKernel<T, false>;

}  // namespace

// Called by RegisterConvKernels (conv_kernels.cc).
void RegisterConv3DKernels(KernelRegistry& r) {
  RegisterTypes<Conv3DKernel, float, double>(r, "Conv3D");
  RegisterTypes<Conv3DBackpropInputKernel, float, double>(r, "Conv3DBackpropInputV2");
  RegisterTypes<Conv3DBackpropFilterKernel, float, double>(r, "Conv3DBackpropFilterV2");
  RegisterTypes<MaxPool3DKernel, float>(r, "MaxPool3D");
  RegisterTypes<AvgPool3DKernel, float, double>(r, "AvgPool3D");
  RegisterTypes<MaxPool3DGradKernel, float>(r, "MaxPool3DGrad");
  RegisterTypes<AvgPool3DGradKernel, float, double>(r, "AvgPool3DGrad");
}

}  // namespace graft::cpu
