// CPU kernels for indexing: StridedSlice, GatherV2, GatherNd, Pad and PadV2.
//
// Both only move elements, so they are templates over the element's storage type (as in
// shape_kernels.cc): one instantiation serves every dtype of that size.
#include <algorithm>
#include <complex>
#include <string>
#include <type_traits>

#include "kernels/cpu/data_movement.h"
#include "kernels/cpu/gather.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"
#include "kernels/cpu/strided_slice_spec.h"

namespace graft::cpu {
namespace {

// ---------------------------------------------------------------------------------------
// StridedSlice: the spec (begin, end, strides and the masks) becomes a base offset, per-dim
// sizes and strides and the output's shape in strided_slice_spec.h, shared with the OpenCL
// kernel; the elements are then moved by StridedCopy.

template <typename T>
class StridedSliceKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "begin_mask", &begin_mask_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "end_mask", &end_mask_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "ellipsis_mask", &ellipsis_mask_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "new_axis_mask", &new_axis_mask_));
    return GetAttr(node(), "shrink_axis_mask", &shrink_axis_mask_);
  }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const Tensor& bt = ctx.input(1);
    const Tensor& et = ctx.input(2);
    const Tensor& st = ctx.input(3);
    GRAFT_RETURN_IF_ERROR(CheckStridedSliceSpecShapes(bt, et, st));
    Dims begin, end, strides;
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(bt, "begin", &begin));
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(et, "end", &end));
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(st, "strides", &strides));
    StridedSliceSpec spec;
    GRAFT_RETURN_IF_ERROR(MakeStridedSliceSpec(
        in.dims(), begin, end, strides,
        {begin_mask_, end_mask_, ellipsis_mask_, new_axis_mask_, shrink_axis_mask_}, &spec));
    const T* src = Elements<T>(in);
    if (spec.empty) return Produce<T>(ctx, 0, in.dtype(), spec.final_dims, [](T*) {});
    return Produce<T>(ctx, 0, in.dtype(), spec.final_dims,
                      [&](T* out) { StridedCopy(src, spec.base, spec.copy_strides, spec.sizes, out); });
  }

 private:
  int64_t begin_mask_ = 0, end_mask_ = 0, ellipsis_mask_ = 0, new_axis_mask_ = 0, shrink_axis_mask_ = 0;
};

// ---------------------------------------------------------------------------------------
// GatherV2: output = params[:axis] + indices[batch_dims:] + params[axis+1:], where batch
// dims (the first batch_dims of both) pair up params and indices.

template <typename T>
class GatherV2Kernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() { return GetAttr(node(), "batch_dims", &batch_dims_); }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& axis_t = ctx.input(2);
    if (axis_t.num_elements() != 1) {
      return errors::InvalidArgument("axis must be scalar, got shape ", ShapeText(axis_t.dims()));
    }
    Dims axis_v;
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(axis_t, "axis", &axis_v));
    return Gather<T>(ctx, 0, ctx.input(0), ctx.input(1), axis_v[0], batch_dims_);
  }

 private:
  int64_t batch_dims_ = 0;
};

// ---------------------------------------------------------------------------------------
// GatherNd: each innermost row of indices (K entries) picks a slice params[i0, ..., iK-1];
// output = indices.shape[:-1] + params.shape[K:].

template <typename T>
class GatherNdKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& params = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    if (indices.rank() < 1) {
      return errors::InvalidArgument("indices must be at least a vector, got shape ", ShapeText(indices.dims()));
    }
    const int64_t prank = params.rank();
    const int64_t k = indices.dims().back();
    if (k > prank) {
      return errors::InvalidArgument("index innermost dimension length must be <= params rank; saw: ", k, " vs. ",
                                     prank);
    }
    Dims idx;
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(indices, "indices", &idx));
    const Dims prefix(indices.dims().begin(), indices.dims().end() - 1);
    int64_t n = 1;
    for (int64_t d : prefix) n *= d;
    Dims out_dims = prefix;
    out_dims.insert(out_dims.end(), params.dims().begin() + k, params.dims().end());
    int64_t slice = 1;
    for (int64_t d = k; d < prank; ++d) slice *= params.dims()[static_cast<size_t>(d)];
    if (n > 0 && params.num_elements() == 0 && slice > 0) {
      return errors::InvalidArgument("Requested more than 0 entries, but params is empty.");
    }
    const Dims pstrides = RowMajorStrides(params.dims());
    Dims offsets(static_cast<size_t>(n), 0);
    for (int64_t i = 0; i < n; ++i) {
      int64_t off = 0;
      for (int64_t j = 0; j < k; ++j) {
        const int64_t ix = idx[static_cast<size_t>(i * k + j)];
        if (ix < 0 || ix >= params.dims()[static_cast<size_t>(j)]) {
          std::string tuple;
          for (int64_t jj = 0; jj < k; ++jj) {
            if (jj > 0) tuple.append(", ");
            tuple.append(std::to_string(idx[static_cast<size_t>(i * k + jj)]));
          }
          std::string pshape = "[";
          for (size_t d = 0; d < params.dims().size(); ++d) {
            if (d > 0) pshape.push_back(',');
            pshape.append(std::to_string(params.dims()[d]));
          }
          pshape.push_back(']');
          return errors::InvalidArgument("indices", IndexText(prefix, i), " = [", tuple,
                                         "] does not index into param shape ", pshape, ", node name: ", node().name());
        }
        off += ix * pstrides[static_cast<size_t>(j)];
      }
      offsets[static_cast<size_t>(i)] = off;
    }
    const T* src = Elements<T>(params);
    return Produce<T>(ctx, 0, params.dtype(), out_dims, [&](T* out) {
      for (int64_t i = 0; i < n; ++i) std::copy_n(src + offsets[static_cast<size_t>(i)], slice, out + i * slice);
    });
  }
};

// ---------------------------------------------------------------------------------------
// Pad and PadV2: paddings is [rank, 2] (before, after per dim); the new elements are 0 (Pad)
// or the scalar constant_values (PadV2).

// The row-major strides of dims fit in int64 (RowMajorStrides multiplies every dim but the
// first, zeros included, so an empty output can still have strides past int64).
Status CheckStridesFit(const Dims& dims) {
  int64_t n = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (__builtin_mul_overflow(n, std::max<int64_t>(dims[i], 1), &n)) {
      return errors::InvalidArgument("the padded shape ", ShapeText(dims), " has more elements than a 64-bit integer counts");
    }
  }
  return Status::Ok();
}

template <typename T>
class PadKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const Tensor& pt = ctx.input(1);
    const int64_t rank = in.rank();
    if (pt.rank() != 2 || pt.dims()[1] != 2) {
      return errors::InvalidArgument("paddings must be a matrix with 2 columns: ", ShapeText(pt.dims()));
    }
    if (pt.dims()[0] != rank) {
      return errors::InvalidArgument("The first dimension of paddings must be the rank of inputs",
                                     ShapeText(pt.dims()), " ", ShapeText(in.dims()));
    }
    T pad_value{};
    if (ctx.num_inputs() > 2) {
      const Tensor& cv = ctx.input(2);
      if (cv.rank() != 0) {
        return errors::InvalidArgument("constant_values must be a scalar. Got: ", ShapeText(cv.dims()));
      }
      pad_value = Elements<T>(cv)[0];
    }
    Dims pads;
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(pt, "paddings", &pads));
    Dims out_dims(static_cast<size_t>(rank));
    int64_t base = 0;
    for (size_t i = 0; i < out_dims.size(); ++i) {
      const int64_t before = pads[2 * i], after = pads[2 * i + 1];
      if (before < 0 || after < 0) {
        return errors::InvalidArgument("Paddings must be non-negative: ", before, " ", after);
      }
      if (__builtin_add_overflow(in.dims()[i], before, &out_dims[i]) ||
          __builtin_add_overflow(out_dims[i], after, &out_dims[i])) {
        return errors::InvalidArgument("paddings [", before, ", ", after, "] of dimension ", i, " (of size ",
                                       in.dims()[i], ") overflow a 64-bit integer");
      }
    }
    GRAFT_RETURN_IF_ERROR(CheckStridesFit(out_dims));
    const Dims out_strides = RowMajorStrides(out_dims);
    for (size_t i = 0; i < out_dims.size(); ++i) base += pads[2 * i] * out_strides[i];
    const T* src = Elements<T>(in);
    const int64_t n_in = in.num_elements();
    return Produce<T>(ctx, 0, in.dtype(), out_dims, [&](T* out) {
      int64_t total = 1;
      for (int64_t d : out_dims) total *= d;
      std::fill_n(out, total, pad_value);
      if (n_in == 0) return;
      // Scatter the input into the interior, one innermost row at a time.
      const size_t r = in.dims().size();
      if (r == 0) {
        out[0] = src[0];
        return;
      }
      const int64_t inner = in.dims()[r - 1];
      Dims idx(r, 0);
      int64_t off = base;
      for (int64_t o = 0; o < n_in; o += inner) {
        std::copy_n(src + o, inner, out + off);
        for (size_t d = r - 1; d-- > 0;) {
          off += out_strides[d];
          if (++idx[d] < in.dims()[d]) break;
          off -= out_strides[d] * in.dims()[d];
          idx[d] = 0;
        }
      }
    });
  }
};

}  // namespace

void RegisterIndexingKernels(KernelRegistry& r) {
  RegisterAllTypes<StridedSliceKernel>(r, "StridedSlice", "T");
  RegisterAllTypes<GatherV2Kernel>(r, "GatherV2", "Tparams");
  RegisterAllTypes<GatherNdKernel>(r, "GatherNd", "Tparams");
  RegisterAllTypes<PadKernel>(r, "Pad", "T");
  RegisterAllTypes<PadKernel>(r, "PadV2", "T");
}

}  // namespace graft::cpu
