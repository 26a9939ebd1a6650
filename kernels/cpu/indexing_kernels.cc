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

namespace graft::cpu {
namespace {

// ---------------------------------------------------------------------------------------
// StridedSlice: TensorFlow's ValidateStridedSliceOp, re-derived. The sparse spec (begin, end,
// strides and the masks, one entry per spec position) is expanded to a dense spec with one
// entry per input dim (the ellipsis, explicit or implied at the end, covers the dims no
// other entry names; new axes consume no input dim), then each dense dim is canonicalised.

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
    if (bt.rank() != 1 || et.rank() != 1 || st.rank() != 1 || bt.num_elements() != et.num_elements() ||
        bt.num_elements() != st.num_elements()) {
      return errors::InvalidArgument("Expected begin, end, and strides to be 1D equal size tensors, but got shapes ",
                                     ShapeText(bt.dims()), ", ", ShapeText(et.dims()), ", and ", ShapeText(st.dims()),
                                     " instead.");
    }
    Dims begin, end, strides;
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(bt, "begin", &begin));
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(et, "end", &end));
    GRAFT_RETURN_IF_ERROR(ReadIndexTensor(st, "strides", &strides));
    const int64_t n = bt.num_elements();
    if (n > 32) return errors::InvalidArgument("StridedSlice supports at most 32 spec entries, got ", n);
    for (int64_t i = 0; i < n; ++i) {
      if (strides[static_cast<size_t>(i)] == 0) return errors::InvalidArgument("strides[", i, "] must be non-zero");
    }
    int64_t ellipsis_mask = ellipsis_mask_;
    if (ellipsis_mask != 0 && (ellipsis_mask & (ellipsis_mask - 1)) != 0) {
      return errors::InvalidArgument("Multiple ellipses in slice spec not allowed");
    }
    // The sparse spec, with an ellipsis appended when there is none.
    int64_t sparse_n = n;
    if (ellipsis_mask == 0) {
      ellipsis_mask = int64_t{1} << n;
      ++sparse_n;
    }
    int64_t new_after_ellipsis = 0;
    bool seen_ellipsis = false;
    for (int64_t i = 0; i < sparse_n; ++i) {
      if (seen_ellipsis && ((new_axis_mask_ >> i) & 1)) ++new_after_ellipsis;
      if ((ellipsis_mask >> i) & 1) seen_ellipsis = true;
    }
    const int64_t rank = in.rank();
    struct DenseDim {
      int64_t begin = 0, end = 0, stride = 1;
      bool begin_masked = true, end_masked = true, shrink = false;
    };
    std::vector<DenseDim> dense(static_cast<size_t>(rank));
    // Final shape: per entry, the dense dim it shows (>= 0) or -1 for a new axis of 1.
    Dims final_from;
    int64_t full = 0;
    for (int64_t i = 0; i < sparse_n; ++i) {
      const int64_t bit = int64_t{1} << i;
      if (ellipsis_mask & bit) {
        const int64_t next = std::min(rank - (sparse_n - i) + 1 + new_after_ellipsis, rank);
        for (; full < next; ++full) final_from.push_back(full);
      } else if (new_axis_mask_ & bit) {
        final_from.push_back(-1);
      } else {
        if (full == rank) {
          return errors::InvalidArgument("Index out of range using input dim ", full, "; input has only ", rank,
                                         " dims");
        }
        DenseDim& d = dense[static_cast<size_t>(full)];
        const size_t si = static_cast<size_t>(i);
        d.begin = begin[si];
        d.end = end[si];
        d.stride = strides[si];
        d.begin_masked = (begin_mask_ & bit) != 0;
        d.end_masked = (end_mask_ & bit) != 0;
        d.shrink = (shrink_axis_mask_ & bit) != 0;
        if (!d.shrink) final_from.push_back(full);
        ++full;
      }
    }
    // Canonicalise each dense dim: its first index and its length.
    const Dims in_strides = RowMajorStrides(in.dims());
    Dims proc_dims(static_cast<size_t>(rank)), copy_strides(static_cast<size_t>(rank));
    int64_t base = 0;
    bool empty = false;
    for (int64_t i = 0; i < rank; ++i) {
      const DenseDim& d = dense[static_cast<size_t>(i)];
      const int64_t dim = in.dims()[static_cast<size_t>(i)];
      const int64_t stride = d.stride;
      int64_t b = 0, e = 0;
      if (d.shrink) {
        b = d.begin < 0 ? dim + d.begin : d.begin;
        e = b + 1;
        if (b < 0 || b >= dim) {
          return errors::InvalidArgument("slice index ", d.begin, " of dimension ", i, " out of bounds.");
        }
      } else {
        const int64_t lo = stride > 0 ? 0 : -1, hi = stride > 0 ? dim : dim - 1;
        auto canonical = [&](int64_t x, bool masked, bool is_end) {
          if (masked) return (stride > 0) != is_end ? lo : hi;
          const int64_t fwd = x < 0 ? dim + x : x;
          return std::clamp(fwd, lo, hi);
        };
        b = canonical(d.begin, d.begin_masked, false);
        e = canonical(d.end, d.end_masked, true);
      }
      const int64_t len = e - b;
      int64_t size = 0;
      if (len == 0 || ((len < 0) != (stride < 0))) {
        size = 0;
      } else {
        size = len / stride + (len % stride != 0 ? 1 : 0);
      }
      if (d.shrink && stride < 0) size = 0;  // TensorFlow: a shrunk dim with a negative stride is empty
      proc_dims[static_cast<size_t>(i)] = size;
      if (size == 0) empty = true;
      base += b * in_strides[static_cast<size_t>(i)];
      copy_strides[static_cast<size_t>(i)] = stride * in_strides[static_cast<size_t>(i)];
    }
    Dims final_dims;
    for (int64_t f : final_from) final_dims.push_back(f < 0 ? 1 : proc_dims[static_cast<size_t>(f)]);
    const T* src = Elements<T>(in);
    if (empty) return Produce<T>(ctx, 0, in.dtype(), final_dims, [](T*) {});
    return Produce<T>(ctx, 0, in.dtype(), final_dims,
                      [&](T* out) { StridedCopy(src, base, copy_strides, proc_dims, out); });
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
