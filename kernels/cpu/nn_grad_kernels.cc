// CPU kernels for the gradients of convolution and pooling, and for the layers the training
// graphs of convolutional models need besides: MaxPoolGrad, AvgPoolGrad,
// Conv2DBackpropInput, Conv2DBackpropFilter (NHWC, SAME / VALID / EXPLICIT, strides and
// dilations, grouped; im2col + gemm as Conv2D), DepthwiseConv2dNative (NHWC) and FusedBatchNormV3
// in inference mode.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/runtime/parallel_for.h"
#include "kernels/cpu/conv_util.h"
#include "kernels/cpu/epilogue.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

using Dims = std::vector<int64_t>;

// The 4 entries of an int32 shape vector input (input_sizes, filter_sizes,
// orig_input_shape), each >= 0.
Status ReadShape4(const std::string& op, const Tensor& t, const char* what, Dims* out) {
  if (t.rank() != 1 || t.num_elements() != 4) {
    return errors::InvalidArgument(op, ": ", what, " must be 1-dimensional and 4 elements, got shape ",
                                   ShapeText(t.dims()));
  }
  const int32_t* p = t.data<int32_t>();
  out->assign(p, p + 4);
  for (int64_t d : *out) {
    if (d < 0) return errors::InvalidArgument(op, ": ", what, " ", ShapeText(*out), " has a negative dimension");
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------
// Pooling gradients. The window geometry is that of MaxPool / AvgPool (conv_kernels.cc).

struct PoolAttrs {
  Dims ksize, strides, explicit_pads;
  std::string padding, format;

  Status Read(const Node& node) {
    GRAFT_RETURN_IF_ERROR(GetAttr(node, "ksize", &ksize));
    GRAFT_RETURN_IF_ERROR(GetAttr(node, "strides", &strides));
    GRAFT_RETURN_IF_ERROR(GetAttr(node, "padding", &padding));
    GRAFT_RETURN_IF_ERROR(GetAttr(node, "data_format", &format));
    if (node.attr("explicit_paddings") != nullptr) GRAFT_RETURN_IF_ERROR(GetAttr(node, "explicit_paddings", &explicit_pads));
    if (ksize.size() != 4 || strides.size() != 4) {
      return errors::InvalidArgument(node.type(), ": ksize and strides must have 4 entries");
    }
    return Status::Ok();
  }
  // Checks what the CPU supports, and computes the output and leading padding per spatial dim.
  Status Geometry(const std::string& op, int64_t h, int64_t w, int64_t* oh, int64_t* ow, int64_t* ph,
                  int64_t* pw) const {
    if (format != "NHWC") return errors::Unimplemented(op, ": data_format ", format, " is not supported on CPU (only NHWC)");
    if (ksize[0] != 1 || strides[0] != 1) {
      return errors::Unimplemented(op, ": pooling is not yet supported on the batch dimension.");
    }
    if (ksize[3] != 1 || strides[3] != 1) return errors::Unimplemented(op, ": depthwise pooling is not supported on CPU");
    if (ksize[1] < 1 || ksize[2] < 1 || strides[1] < 1 || strides[2] < 1) {
      return errors::InvalidArgument(op, ": ksize and strides must be positive");
    }
    const bool expl = padding == "EXPLICIT";
    if (expl && explicit_pads.size() != 8) return errors::InvalidArgument(op, ": explicit_paddings must have 8 entries");
    GRAFT_RETURN_IF_ERROR(Windowed(h, ksize[1], 1, strides[1], padding, expl ? explicit_pads[2] : 0,
                                   expl ? explicit_pads[3] : 0, oh, ph));
    return Windowed(w, ksize[2], 1, strides[2], padding, expl ? explicit_pads[4] : 0, expl ? explicit_pads[5] : 0, ow,
                    pw);
  }
};

// MaxPoolGrad: each window's gradient goes to the window's maximum (the first one in
// row-major order when several are equal), recomputed from orig_input.
template <typename T>
class MaxPoolGradKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return attrs_.Read(node()); }
  Status Compute(OpKernelContext& ctx) const override {
    const std::string& op = node().type();
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    const Tensor& dy = ctx.input(2);
    if (x.rank() != 4) return errors::InvalidArgument("tensor_in must be 4-dimensional, got ", ShapeText(x.dims()));
    if (y.rank() != 4) return errors::InvalidArgument("tensor_out must be 4-dimensional, got ", ShapeText(y.dims()));
    if (dy.rank() != 4) return errors::InvalidArgument("out_backprop must be 4-dimensional, got ", ShapeText(dy.dims()));
    const int64_t n = x.dim(0), h = x.dim(1), w = x.dim(2), c = x.dim(3);
    int64_t oh = 0, ow = 0, ph = 0, pw = 0;
    GRAFT_RETURN_IF_ERROR(attrs_.Geometry(op, h, w, &oh, &ow, &ph, &pw));
    const Dims fwd = {n, oh, ow, c};
    if (y.dims() != fwd) {
      return errors::InvalidArgument("The shape of tensor_out ", ShapeText(y.dims()),
                                     " must be the same as the forward output shape ", ShapeText(fwd));
    }
    if (dy.dims() != fwd) {
      return errors::InvalidArgument("The shape of out_backprop ", ShapeText(dy.dims()),
                                     " must be the same as the forward output shape ", ShapeText(fwd));
    }
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, x.dtype(), x.dims(), &out));
    T* po = out->data<T>();
    std::fill(po, po + x.num_elements(), T(0));
    const T* px = x.data<T>();
    const T* pg = dy.data<T>();
    const int64_t kh = attrs_.ksize[1], kw = attrs_.ksize[2], sh = attrs_.strides[1], sw = attrs_.strides[2];
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t oy = 0; oy < oh; ++oy) {
        const int64_t y0 = std::max<int64_t>(oy * sh - ph, 0), y1 = std::min(oy * sh - ph + kh, h);
        for (int64_t ox = 0; ox < ow; ++ox) {
          const int64_t x0 = std::max<int64_t>(ox * sw - pw, 0), x1 = std::min(ox * sw - pw + kw, w);
          if (y0 >= y1 || x0 >= x1) continue;  // a window of padding only
          for (int64_t ch = 0; ch < c; ++ch) {
            int64_t best = ((b * h + y0) * w + x0) * c + ch;
            for (int64_t iy = y0; iy < y1; ++iy) {
              for (int64_t ix = x0; ix < x1; ++ix) {
                const int64_t at = ((b * h + iy) * w + ix) * c + ch;
                if (px[at] > px[best]) best = at;
              }
            }
            po[best] += pg[((b * oh + oy) * ow + ox) * c + ch];
          }
        }
      }
    }
    return Status::Ok();
  }

 private:
  PoolAttrs attrs_;
};

// AvgPoolGrad: each window's gradient is shared equally by the window's cells inside the
// input (padding does not count, as in AvgPool).
template <typename T>
class AvgPoolGradKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return attrs_.Read(node()); }
  Status Compute(OpKernelContext& ctx) const override {
    const std::string& op = node().type();
    Dims in_dims;
    GRAFT_RETURN_IF_ERROR(ReadShape4(op, ctx.input(0), "orig_input_shape", &in_dims));
    const Tensor& dy = ctx.input(1);
    if (dy.rank() != 4) return errors::InvalidArgument("out_backprop must be 4-dimensional, got ", ShapeText(dy.dims()));
    const int64_t n = in_dims[0], h = in_dims[1], w = in_dims[2], c = in_dims[3];
    int64_t oh = 0, ow = 0, ph = 0, pw = 0;
    GRAFT_RETURN_IF_ERROR(attrs_.Geometry(op, h, w, &oh, &ow, &ph, &pw));
    const Dims fwd = {n, oh, ow, c};
    if (dy.dims() != fwd) {
      return errors::InvalidArgument("The shape of out_backprop ", ShapeText(dy.dims()),
                                     " must be the same as the forward output shape ", ShapeText(fwd));
    }
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, dy.dtype(), in_dims, &out));
    T* po = out->data<T>();
    std::fill(po, po + out->num_elements(), T(0));
    const T* pg = dy.data<T>();
    const int64_t kh = attrs_.ksize[1], kw = attrs_.ksize[2], sh = attrs_.strides[1], sw = attrs_.strides[2];
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t oy = 0; oy < oh; ++oy) {
        const int64_t y0 = std::max<int64_t>(oy * sh - ph, 0), y1 = std::min(oy * sh - ph + kh, h);
        for (int64_t ox = 0; ox < ow; ++ox) {
          const int64_t x0 = std::max<int64_t>(ox * sw - pw, 0), x1 = std::min(ox * sw - pw + kw, w);
          if (y0 >= y1 || x0 >= x1) continue;
          const T cnt = static_cast<T>((y1 - y0) * (x1 - x0));
          const T* g = pg + ((b * oh + oy) * ow + ox) * c;
          for (int64_t iy = y0; iy < y1; ++iy) {
            for (int64_t ix = x0; ix < x1; ++ix) {
              T* dst = po + ((b * h + iy) * w + ix) * c;
              for (int64_t ch = 0; ch < c; ++ch) dst[ch] += g[ch] / cnt;
            }
          }
        }
      }
    }
    return Status::Ok();
  }

 private:
  PoolAttrs attrs_;
};

// ---------------------------------------------------------------------------------------
// Convolution attrs and geometry (Conv2D's, conv_kernels.cc).

struct ConvAttrs {
  Dims strides, dilations = {1, 1, 1, 1}, explicit_pads;
  std::string padding, format;

  Status Read(const Node& node) {
    const std::string& op = node.type();
    GRAFT_RETURN_IF_ERROR(GetAttr(node, "strides", &strides));
    GRAFT_RETURN_IF_ERROR(GetAttr(node, "padding", &padding));
    GRAFT_RETURN_IF_ERROR(GetAttr(node, "data_format", &format));
    if (node.attr("dilations") != nullptr) GRAFT_RETURN_IF_ERROR(GetAttr(node, "dilations", &dilations));
    if (node.attr("explicit_paddings") != nullptr) GRAFT_RETURN_IF_ERROR(GetAttr(node, "explicit_paddings", &explicit_pads));
    if (strides.size() != 4) return errors::InvalidArgument(op, ": sliding window strides field must specify 4 dimensions");
    if (dilations.size() != 4) return errors::InvalidArgument(op, ": sliding window dilations field must specify 4 dimensions");
    if (padding == "EXPLICIT" && explicit_pads.size() != 8) {
      return errors::InvalidArgument(op, ": explicit_paddings must have 8 entries");
    }
    return Status::Ok();
  }
  Status Geometry(const std::string& op, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t* oh, int64_t* ow,
                  int64_t* ph, int64_t* pw) const {
    if (format != "NHWC") return errors::Unimplemented(op, ": data_format ", format, " is not supported on CPU (only NHWC)");
    if (strides[0] != 1 || strides[3] != 1) {
      return errors::Unimplemented(op, ": current implementation does not yet support strides in the batch and depth "
                                   "dimensions.");
    }
    if (dilations[0] != 1 || dilations[3] != 1) {
      return errors::Unimplemented(op, ": current implementation does not yet support dilations in the batch and depth "
                                   "dimensions.");
    }
    if (strides[1] < 1 || strides[2] < 1 || dilations[1] < 1 || dilations[2] < 1) {
      return errors::InvalidArgument(op, ": strides and dilations must be positive");
    }
    for (int d = 1; d <= 2; ++d) {
      GRAFT_RETURN_IF_ERROR(CheckInt32Attr(op, "strides", strides[static_cast<size_t>(d)]));
      GRAFT_RETURN_IF_ERROR(CheckInt32Attr(op, "dilations", dilations[static_cast<size_t>(d)]));
    }
    const bool expl = padding == "EXPLICIT";
    GRAFT_RETURN_IF_ERROR(Windowed(h, kh, dilations[1], strides[1], padding, expl ? explicit_pads[2] : 0,
                                   expl ? explicit_pads[3] : 0, oh, ph));
    return Windowed(w, kw, dilations[2], strides[2], padding, expl ? explicit_pads[4] : 0, expl ? explicit_pads[5] : 0,
                    ow, pw);
  }
};

// The im2col patch geometry of one convolution: input [n, h, w, in_c], filter [kh, kw, c, oc],
// output [n, oh, ow, oc]; patch row r (= (b * oh + oy) * ow + ox) holds k = kh * kw * c
// input values, tap (i, j) at column (i * kw + j) * c. A grouped convolution has
// groups = in_c / c > 1: group g reads input channels [g * c, (g + 1) * c) and writes output
// channels [g * oc / groups, (g + 1) * oc / groups).
struct Patches {
  int64_t n, h, w, c, kh, kw, oc, oh, ow, ph, pw, sh, sw, dh, dw;
  int64_t in_c = 0, groups = 1;
  int64_t k() const { return kh * kw * c; }
  int64_t rows() const { return n * oh * ow; }
  // Calls f(input offset, column offset) for every in-bounds tap of patch row r.
  template <typename F>
  void ForTaps(int64_t r, F f) const {
    const int64_t b = r / (oh * ow), oy = (r / ow) % oh, ox = r % ow;
    for (int64_t i = 0; i < kh; ++i) {
      const int64_t iy = oy * sh - ph + i * dh;
      if (iy < 0 || iy >= h) continue;
      for (int64_t j = 0; j < kw; ++j) {
        const int64_t ix = ox * sw - pw + j * dw;
        if (ix < 0 || ix >= w) continue;
        f(((b * h + iy) * w + ix) * in_c, (i * kw + j) * c);
      }
    }
  }
};

// groups_ok: the input depth may be a multiple of the filter's (a grouped convolution).
Status MakePatches(const std::string& op, const ConvAttrs& a, const Dims& in, const Dims& filter, Patches* p,
                   bool groups_ok = false) {
  if (a.format != "NHWC") {
    return errors::Unimplemented(op, ": data_format ", a.format, " is not supported on CPU (only NHWC)");
  }
  if (filter[2] != in[3] && !(groups_ok && filter[2] > 0 && in[3] % filter[2] == 0)) {
    return errors::InvalidArgument(op, ": input depth must equal filter depth: ", in[3], " vs ", filter[2]);
  }
  *p = Patches{in[0], in[1], in[2], filter[2], filter[0], filter[1], filter[3], 0, 0, 0, 0,
               a.strides[1], a.strides[2], a.dilations[1], a.dilations[2]};
  p->in_c = in[3];
  p->groups = filter[2] > 0 ? in[3] / filter[2] : 1;
  if (p->oc % p->groups != 0) {
    return errors::InvalidArgument(op, ": output depth must be evenly divisible by number of groups: ", p->oc, " vs ",
                                   p->groups);
  }
  GRAFT_RETURN_IF_ERROR(a.Geometry(op, p->h, p->w, p->kh, p->kw, &p->oh, &p->ow, &p->ph, &p->pw));
  if (p->k() > INT32_MAX || p->oc > INT32_MAX || p->rows() > INT32_MAX) {
    return errors::InvalidArgument(op, ": too large for BLAS");
  }
  return Status::Ok();
}

Status CheckOutBackprop(const std::string& op, const Patches& p, const Tensor& dy) {
  const Dims want = {p.n, p.oh, p.ow, p.oc};
  if (dy.dims() != want) {
    return errors::InvalidArgument(op, ": out_backprop shape ", ShapeText(dy.dims()),
                                   " does not match the computed output shape ", ShapeText(want));
  }
  return Status::Ok();
}

// Patch rows per block, so that the patch buffer stays bounded.
int64_t BlockRows(const Patches& p) {
  return std::max<int64_t>(1, std::min<int64_t>(p.rows(), (int64_t{1} << 22) / std::max<int64_t>(p.k(), 1)));
}

// Conv2DBackpropInput: dx = col2im(dy * filter^T), the patches' gradients added back into
// the input positions they were read from.
template <typename T>
class Conv2DBackpropInputKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return attrs_.Read(node()); }
  Status Compute(OpKernelContext& ctx) const override {
    const std::string& op = node().type();
    const Tensor& sizes = ctx.input(0);
    const Tensor& f = ctx.input(1);
    const Tensor& dy = ctx.input(2);
    if (f.rank() != 4) return errors::InvalidArgument(op, ": filter must be 4-dimensional, got ", ShapeText(f.dims()));
    if (dy.rank() != 4) {
      return errors::InvalidArgument(op, ": out_backprop must be 4-dimensional, got ", ShapeText(dy.dims()));
    }
    Dims in_dims;
    if (sizes.rank() == 1 && sizes.num_elements() == 2) {
      // Rows and cols only: batch from out_backprop, depth from the filter.
      const int32_t* s = sizes.data<int32_t>();
      in_dims = {dy.dim(0), s[0], s[1], f.dim(2)};
      if (s[0] < 0 || s[1] < 0) return errors::InvalidArgument(op, ": input_sizes has a negative dimension");
    } else {
      GRAFT_RETURN_IF_ERROR(ReadShape4(op, sizes, "input_sizes", &in_dims));
    }
    Patches p{};
    GRAFT_RETURN_IF_ERROR(MakePatches(op, attrs_, in_dims, f.dims(), &p, /*groups_ok=*/true));
    GRAFT_RETURN_IF_ERROR(CheckOutBackprop(op, p, dy));
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, f.dtype(), in_dims, &out));
    T* dx = out->data<T>();
    std::fill(dx, dx + out->num_elements(), T(0));
    const int64_t k = p.k(), rows_total = p.rows();
    if (k == 0 || rows_total == 0 || p.oc == 0) return Status::Ok();
    const T* pf = f.data<T>();
    const T* pg = dy.data<T>();
    const int64_t block = BlockRows(p);
    std::vector<T> col(static_cast<size_t>(block * k));
    const int64_t ocg = p.oc / p.groups;
    for (int64_t r0 = 0; r0 < rows_total; r0 += block) {
      const int64_t rows = std::min(block, rows_total - r0);
      for (int64_t g = 0; g < p.groups; ++g) {
        // col[rows, k] = dy[rows, group's oc] * filter[k, group's oc]^T
        GemmRowMajor<T>(false, true, rows, k, ocg, pg + r0 * p.oc + g * ocg, p.oc, pf + g * ocg, p.oc, false,
                        col.data(), k);
        for (int64_t r = 0; r < rows; ++r) {
          const T* src = col.data() + r * k;
          p.ForTaps(r0 + r, [&](int64_t in_off, int64_t col_off) {
            for (int64_t ch = 0; ch < p.c; ++ch) dx[in_off + g * p.c + ch] += src[col_off + ch];
          });
        }
      }
    }
    return Status::Ok();
  }

 private:
  ConvAttrs attrs_;
};

// Conv2DBackpropFilter: dfilter[k, oc] = im2col(x)^T * dy, summed over every patch row.
template <typename T>
class Conv2DBackpropFilterKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return attrs_.Read(node()); }
  Status Compute(OpKernelContext& ctx) const override {
    const std::string& op = node().type();
    const Tensor& x = ctx.input(0);
    const Tensor& dy = ctx.input(2);
    if (x.rank() != 4) return errors::InvalidArgument(op, ": input must be 4-dimensional, got ", ShapeText(x.dims()));
    if (dy.rank() != 4) {
      return errors::InvalidArgument(op, ": out_backprop must be 4-dimensional, got ", ShapeText(dy.dims()));
    }
    Dims f_dims;
    GRAFT_RETURN_IF_ERROR(ReadShape4(op, ctx.input(1), "filter_sizes", &f_dims));
    Patches p{};
    GRAFT_RETURN_IF_ERROR(MakePatches(op, attrs_, x.dims(), f_dims, &p, /*groups_ok=*/true));
    GRAFT_RETURN_IF_ERROR(CheckOutBackprop(op, p, dy));
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, x.dtype(), f_dims, &out));
    T* df = out->data<T>();
    std::fill(df, df + out->num_elements(), T(0));
    const int64_t k = p.k(), rows_total = p.rows();
    if (k == 0 || rows_total == 0 || p.oc == 0) return Status::Ok();
    const T* px = x.data<T>();
    const T* pg = dy.data<T>();
    const int64_t block = BlockRows(p);
    std::vector<T> col(static_cast<size_t>(block * k));
    const int64_t ocg = p.oc / p.groups;
    for (int64_t r0 = 0; r0 < rows_total; r0 += block) {
      const int64_t rows = std::min(block, rows_total - r0);
      for (int64_t g = 0; g < p.groups; ++g) {
        std::fill(col.begin(), col.begin() + rows * k, T(0));
        for (int64_t r = 0; r < rows; ++r) {
          T* dst = col.data() + r * k;
          p.ForTaps(r0 + r,
                    [&](int64_t in_off, int64_t col_off) { std::copy_n(px + in_off + g * p.c, p.c, dst + col_off); });
        }
        // df[k, group's oc] += col[rows, k]^T * dy[rows, group's oc]
        GemmRowMajor<T>(true, false, k, ocg, rows, col.data(), k, pg + r0 * p.oc + g * ocg, p.oc, true, df + g * ocg,
                        p.oc);
      }
    }
    return Status::Ok();
  }

 private:
  ConvAttrs attrs_;
};

// ---------------------------------------------------------------------------------------
// DepthwiseConv2dNative: filter [kh, kw, c, m]; each input channel is convolved with its
// own m filters: out[b, y, x, ch * m + q] = sum over taps of in[.., ch] * filter[i, j, ch, q].

// Output row (b, oy) of a depthwise convolution: each pixel sums, over the taps inside the
// input, the input pixel's channels times the tap's filter [kh, kw, c, mult]. Channels are
// contiguous in both: multiplier 1 (MobileNet's case) folds them in register blocks
// (FoldWindow), other multipliers tap by tap.
template <typename T>
void DepthwiseRow(const Patches& p, int64_t mult, const T* x, const T* f, int64_t b, int64_t oy, T* row) {
  const int64_t c = p.c, oc = c * mult;
  std::vector<const T*> srcs(static_cast<size_t>(p.kh * p.kw)), taps(srcs.size());
  for (int64_t ox = 0; ox < p.ow; ++ox) {
    T* dst = row + ox * oc;
    int64_t n = 0;  // the taps inside the input
    for (int64_t i = 0; i < p.kh; ++i) {
      const int64_t iy = oy * p.sh - p.ph + i * p.dh;
      if (iy < 0 || iy >= p.h) continue;
      for (int64_t j = 0; j < p.kw; ++j) {
        const int64_t ix = ox * p.sw - p.pw + j * p.dw;
        if (ix < 0 || ix >= p.w) continue;
        srcs[static_cast<size_t>(n)] = x + ((b * p.h + iy) * p.w + ix) * c;
        taps[static_cast<size_t>(n++)] = f + (i * p.kw + j) * oc;
      }
    }
    if (mult == 1) {
      FoldWindow<T>(dst, srcs.data(), taps.data(), n, c, T(0), [](T a, T v, T w) { return a + v * w; });
      continue;
    }
    std::fill(dst, dst + oc, T(0));
    for (int64_t t = 0; t < n; ++t) {
      const T* src = srcs[static_cast<size_t>(t)];
      const T* tap = taps[static_cast<size_t>(t)];
      for (int64_t ch = 0; ch < c; ++ch) {
        for (int64_t q = 0; q < mult; ++q) dst[ch * mult + q] += src[ch] * tap[ch * mult + q];
      }
    }
  }
}

// The float row is compiled also for AVX-512 and for AVX2 with FMA (GRAFT_CPU_CLONES): 2x
// faster on MobileNet's layers (docs/benchmarks.md, bench_pool).
GRAFT_CPU_CLONES
void DepthwiseRowF32(const Patches& p, int64_t mult, const float* x, const float* f, int64_t b, int64_t oy,
                     float* row) {
  DepthwiseRow<float>(p, mult, x, f, b, oy, row);
}

template <typename T>
// DepthwiseConv2dNative, and Graft's fused _GraftFusedDepthwiseConv2dNative (a bias as input 2
// and an "activation" attr, applied to each output row as it is finished: the fusion rewrite's,
// core/runtime/fusion.h).
class DepthwiseConvKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(attrs_.Read(node()));
    GRAFT_RETURN_IF_ERROR(fused_.Init(node(), "DepthwiseConv2dNative"));
    nchw_ = attrs_.format == "NCHW";
    if (nchw_) {  // computed in NHWC (conv_util.h)
      attrs_.strides = NhwcOrder(attrs_.strides);
      attrs_.dilations = NhwcOrder(attrs_.dilations);
      attrs_.explicit_pads = NhwcOrder(attrs_.explicit_pads);
      attrs_.format = "NHWC";
    }
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    const std::string& op = node().type();
    const Tensor& f = ctx.input(1);
    if (ctx.input(0).rank() != 4) {
      return errors::InvalidArgument(op, ": input must be 4-dimensional, got ", ShapeText(ctx.input(0).dims()));
    }
    if (f.rank() != 4) return errors::InvalidArgument(op, ": filter must be 4-dimensional, got ", ShapeText(f.dims()));
    if (attrs_.format != "NHWC") {
      return errors::Unimplemented(op, ": data_format ", attrs_.format, " is not supported on CPU (NHWC or NCHW)");
    }
    Epilogue<T> epilogue;
    GRAFT_RETURN_IF_ERROR(fused_.Make(ctx, 2, f.dim(2) * f.dim(3), &epilogue));
    return ComputeInLayout<T>(ctx, nchw_,
                              [&](const Tensor& x, const ResultAlloc& alloc) { return Forward(x, f, epilogue, alloc); });
  }

 private:
  // x is NHWC.
  Status Forward(const Tensor& x, const Tensor& f, const Epilogue<T>& epilogue, const ResultAlloc& alloc) const {
    const std::string& op = node().type();
    if (f.dim(2) != x.dim(3)) {
      return errors::InvalidArgument(op, ": input and filter must have the same depth: ", x.dim(3), " vs ", f.dim(2));
    }
    Patches p{};
    Dims pf_dims = {f.dim(0), f.dim(1), f.dim(2), f.dim(3)};
    GRAFT_RETURN_IF_ERROR(MakePatches(op, attrs_, x.dims(), pf_dims, &p));
    const int64_t mult = f.dim(3), c = p.c, oc = c * mult;
    Tensor* out = nullptr;
    const Dims out_dims = {p.n, p.oh, p.ow, oc};
    GRAFT_RETURN_IF_ERROR(alloc(out_dims, &out));
    if (out->num_elements() == 0) return Status::Ok();
    const T* px = x.data<T>();
    const T* pf = f.data<T>();
    T* po = out->data<T>();
    // One item per output row (b, oy), spread over the intra-op threads.
    const int64_t oh = p.oh, ow = p.ow, rows = p.n * oh;
    const int64_t work = std::max<int64_t>(1, ow * oc * p.kh * p.kw);
    ParallelFor(rows, std::max<int64_t>(1, (1 << 15) / work), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        T* row = po + r * ow * oc;
        if constexpr (std::is_same_v<T, float>) {
          DepthwiseRowF32(p, mult, px, pf, r / oh, r % oh, row);
        } else {
          DepthwiseRow<T>(p, mult, px, pf, r / oh, r % oh, row);
        }
        epilogue.ApplyRows(row, ow, oc, oc);
      }
    });
    return Status::Ok();
  }

  ConvAttrs attrs_;
  bool nchw_ = false;
  FusedEpilogue<T> fused_;
};

// ---------------------------------------------------------------------------------------
// FusedBatchNormV3 per channel c: y = (x - m) * scale / sqrt(v + epsilon) + offset.
// Inference (is_training = false): m, v are the mean and variance inputs, which batch_mean,
// batch_variance and reserve spaces 1 and 2 pass on. Training: m, v are the batch's mean and
// (biased) variance over every axis but the channels'; reserve spaces 1 and 2 keep them (for
// the gradient), and batch_mean / batch_variance are the running statistics
// (1 - f) * input + f * batch with f = exponential_avg_factor, where the running variance is
// the unbiased one (n / (n - 1)); with f = 1 the mean and variance inputs may be empty.
// Reserve space 3 is empty (shape [0]), as TensorFlow's on CPU.

template <typename T>
class FusedBatchNormKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "epsilon", &epsilon_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "is_training", &is_training_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "data_format", &format_));
    if (node().attr("exponential_avg_factor") != nullptr) {
      GRAFT_RETURN_IF_ERROR(GetAttr(node(), "exponential_avg_factor", &factor_));
    }
    DType u = DType::kInvalid;
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "U", &u));
    if (u != DType::kFloat32) {
      return errors::Unimplemented("FusedBatchNormV3: U = ", DTypeName(u), " is not supported on CPU (only float)");
    }
    return Status::Ok();
  }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const bool channels_first = format_ == "NCHW" || format_ == "NCDHW";
    const int rank = format_ == "NHWC" || format_ == "NCHW" ? 4 : 5;
    if (x.rank() != rank) {
      return errors::InvalidArgument("input must be ", rank, "-dimensional for data_format ", format_, ", got ",
                                     ShapeText(x.dims()));
    }
    const int cdim = channels_first ? 1 : rank - 1;
    const int64_t c = x.dim(cdim);
    // In training with a factor of 1 the running statistics are not read: they may be empty.
    const bool stats_unused = is_training_ && factor_ == 1.0f;
    static const char* const kNames[5] = {"x", "scale", "offset", "mean", "variance"};
    for (int i = 1; i < 5; ++i) {
      const Tensor& v = ctx.input(i);
      if (v.rank() != 1) {
        return errors::InvalidArgument(kNames[i], " must be 1-dimensional, got ", ShapeText(v.dims()));
      }
      if (v.dim(0) != c && !(i >= 3 && stats_unused && v.dim(0) == 0)) {
        return errors::InvalidArgument(kNames[i], " must have the same number of elements as the channels of x, got ",
                                       v.dim(0), " and ", c);
      }
    }
    int64_t inner = 1;
    for (int d = cdim + 1; d < rank; ++d) inner *= x.dim(d);
    const int64_t n = x.num_elements();
    const int64_t per_channel = c > 0 ? n / c : 0;
    const T* px = x.data<T>();
    const float* scale = ctx.input(1).data<float>();
    const float* offset = ctx.input(2).data<float>();
    std::vector<float> m(static_cast<size_t>(c)), v(static_cast<size_t>(c));
    if (is_training_ && per_channel == 0) {
      // An empty batch has no statistics: NaN running statistics, zero saved ones (TensorFlow's).
      Tensor* y = nullptr;
      GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, x.dtype(), x.dims(), &y));
      for (int o = 1; o <= 4; ++o) {
        Tensor* t = nullptr;
        GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(o, DType::kFloat32, Dims{c}, &t));
        std::fill_n(t->data<float>(), c, o <= 2 ? std::numeric_limits<float>::quiet_NaN() : 0.0f);
      }
      Tensor* r3 = nullptr;
      return ctx.AllocateOutput(5, DType::kFloat32, Dims{0}, &r3);
    }
    if (is_training_) {
      // Two passes in double: the mean, then the centred sum of squares.
      std::vector<double> sum(static_cast<size_t>(c), 0.0), sq(static_cast<size_t>(c), 0.0);
      for (int64_t e = 0; e < n; ++e) sum[static_cast<size_t>((e / inner) % c)] += static_cast<double>(px[e]);
      for (int64_t ch = 0; ch < c; ++ch) sum[static_cast<size_t>(ch)] /= static_cast<double>(per_channel);
      for (int64_t e = 0; e < n; ++e) {
        const size_t ch = static_cast<size_t>((e / inner) % c);
        const double d = static_cast<double>(px[e]) - sum[ch];
        sq[ch] += d * d;
      }
      for (int64_t ch = 0; ch < c; ++ch) {
        const size_t i = static_cast<size_t>(ch);
        m[i] = static_cast<float>(sum[i]);
        v[i] = static_cast<float>(sq[i] / static_cast<double>(per_channel));
      }
    } else {
      std::copy_n(ctx.input(3).data<float>(), c, m.data());
      std::copy_n(ctx.input(4).data<float>(), c, v.data());
    }
    std::vector<float> mul(static_cast<size_t>(c)), add(static_cast<size_t>(c));
    for (int64_t ch = 0; ch < c; ++ch) {
      const size_t i = static_cast<size_t>(ch);
      mul[i] = scale[ch] / std::sqrt(v[i] + epsilon_);
      add[i] = offset[ch] - m[i] * mul[i];
    }
    Tensor* y = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, x.dtype(), x.dims(), &y, 0));
    T* py = y->data<T>();
    for (int64_t e = 0; e < n; ++e) {
      const size_t ch = static_cast<size_t>((e / inner) % c);
      py[e] = static_cast<T>(static_cast<float>(px[e]) * mul[ch] + add[ch]);
    }
    const Dims vec = {c};
    Tensor* out[4] = {nullptr, nullptr, nullptr, nullptr};
    for (int o = 1; o <= 4; ++o) GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(o, DType::kFloat32, vec, &out[o - 1]));
    for (int64_t ch = 0; ch < c; ++ch) {
      const size_t i = static_cast<size_t>(ch);
      float running_mean = m[i], running_var = v[i];
      if (is_training_) {
        const float unbiased = per_channel > 1 ? static_cast<float>(static_cast<double>(v[i]) * per_channel /
                                                                     static_cast<double>(per_channel - 1))
                                               : v[i];
        running_var = unbiased;
        if (!stats_unused) {
          running_mean = (1 - factor_) * ctx.input(3).data<float>()[ch] + factor_ * m[i];
          running_var = (1 - factor_) * ctx.input(4).data<float>()[ch] + factor_ * unbiased;
        }
      }
      out[0]->data<float>()[ch] = running_mean;
      out[1]->data<float>()[ch] = running_var;
      out[2]->data<float>()[ch] = m[i];
      out[3]->data<float>()[ch] = v[i];
    }
    Tensor* r3 = nullptr;
    return ctx.AllocateOutput(5, DType::kFloat32, Dims{0}, &r3);
  }

 private:
  float epsilon_ = 1e-4f;
  float factor_ = 1.0f;
  bool is_training_ = true;
  std::string format_;
};

}  // namespace

void RegisterNnGradKernels(KernelRegistry& r) {
  RegisterTypes<MaxPoolGradKernel, float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                uint64_t>(r, "MaxPoolGrad");
  RegisterTypes<AvgPoolGradKernel, float, double>(r, "AvgPoolGrad");
  RegisterTypes<Conv2DBackpropInputKernel, float, double, int32_t>(r, "Conv2DBackpropInput");
  RegisterTypes<Conv2DBackpropFilterKernel, float, double>(r, "Conv2DBackpropFilter");
  RegisterTypes<DepthwiseConvKernel, float, double>(r, "DepthwiseConv2dNative");
  RegisterTypes<DepthwiseConvKernel, float, double>(r, "_GraftFusedDepthwiseConv2dNative");
  RegisterTypes<FusedBatchNormKernel, float>(r, "FusedBatchNormV3");
}

}  // namespace graft::cpu
