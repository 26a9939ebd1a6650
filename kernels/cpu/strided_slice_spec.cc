#include "kernels/cpu/strided_slice_spec.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace graft::cpu {

Status CheckStridedSliceSpecShapes(const Tensor& bt, const Tensor& et, const Tensor& st) {
  if (bt.rank() != 1 || et.rank() != 1 || st.rank() != 1 || bt.num_elements() != et.num_elements() ||
      bt.num_elements() != st.num_elements()) {
    return errors::InvalidArgument("Expected begin, end, and strides to be 1D equal size tensors, but got shapes ",
                                   ShapeText(bt.dims()), ", ", ShapeText(et.dims()), ", and ", ShapeText(st.dims()),
                                   " instead.");
  }
  return Status::Ok();
}

Status MakeStridedSliceSpec(const Dims& in_dims, const Dims& begin, const Dims& end, const Dims& strides,
                            const StridedSliceMasks& masks, StridedSliceSpec* spec) {
  const int64_t n = static_cast<int64_t>(begin.size());
  if (n > 32) return errors::InvalidArgument("StridedSlice supports at most 32 spec entries, got ", n);
  for (int64_t i = 0; i < n; ++i) {
    if (strides[static_cast<size_t>(i)] == 0) return errors::InvalidArgument("strides[", i, "] must be non-zero");
  }
  int64_t ellipsis_mask = masks.ellipsis;
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
    if (seen_ellipsis && ((masks.new_axis >> i) & 1)) ++new_after_ellipsis;
    if ((ellipsis_mask >> i) & 1) seen_ellipsis = true;
  }
  const int64_t rank = static_cast<int64_t>(in_dims.size());
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
    } else if (masks.new_axis & bit) {
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
      d.begin_masked = (masks.begin & bit) != 0;
      d.end_masked = (masks.end & bit) != 0;
      d.shrink = (masks.shrink_axis & bit) != 0;
      if (!d.shrink) final_from.push_back(full);
      ++full;
    }
  }
  // Canonicalise each dense dim: its first index and its length.
  const Dims in_strides = RowMajorStrides(in_dims);
  Dims sizes(static_cast<size_t>(rank)), copy_strides(static_cast<size_t>(rank));
  int64_t base = 0;
  bool empty = false;
  for (int64_t i = 0; i < rank; ++i) {
    const DenseDim& d = dense[static_cast<size_t>(i)];
    const int64_t dim = in_dims[static_cast<size_t>(i)];
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
    if (len != 0 && ((len < 0) == (stride < 0))) size = len / stride + (len % stride != 0 ? 1 : 0);
    if (d.shrink && stride < 0) size = 0;  // TensorFlow: a shrunk dim with a negative stride is empty
    sizes[static_cast<size_t>(i)] = size;
    if (size == 0) empty = true;
    base += b * in_strides[static_cast<size_t>(i)];
    copy_strides[static_cast<size_t>(i)] = stride * in_strides[static_cast<size_t>(i)];
  }
  Dims final_dims;
  for (int64_t f : final_from) final_dims.push_back(f < 0 ? 1 : sizes[static_cast<size_t>(f)]);
  spec->base = base;
  spec->sizes = std::move(sizes);
  spec->copy_strides = std::move(copy_strides);
  spec->final_dims = std::move(final_dims);
  spec->empty = empty;
  return Status::Ok();
}

}  // namespace graft::cpu
