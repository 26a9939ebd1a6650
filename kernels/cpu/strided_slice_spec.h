// StridedSlice's spec: TensorFlow's ValidateStridedSliceOp, re-derived, shared by the CPU
// kernel (indexing_kernels.cc) and the OpenCL one (kernels/opencl/data_kernels.cc). The sparse
// spec (begin, end, strides and the masks, one entry per spec position) is expanded to a dense
// spec with one entry per input dim (the ellipsis, explicit or implied at the end, covers the
// dims no other entry names; new axes consume no input dim), then each dense dim is
// canonicalised to a first index, a stride and a length.
#pragma once

#include <cstdint>

#include "kernels/cpu/data_movement.h"

namespace graft::cpu {

// Where a strided slice reads its input (row-major, in elements) and the shape it makes.
struct StridedSliceSpec {
  int64_t base = 0;   // offset of the first element read
  Dims sizes;         // per input dim: how many elements it keeps
  Dims copy_strides;  // per input dim: the step between kept elements
  Dims final_dims;    // the output's shape (shrunk dims gone, new axes of 1 added)
  bool empty = false; // some dim keeps no element
};

struct StridedSliceMasks {
  int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink_axis = 0;
};

// begin, end and strides (the op's inputs 1-3) are 1-D and of one size.
Status CheckStridedSliceSpecShapes(const Tensor& begin, const Tensor& end, const Tensor& strides);

// The slice of an input of in_dims that begin, end, strides (one entry each per spec position)
// and masks select.
Status MakeStridedSliceSpec(const Dims& in_dims, const Dims& begin, const Dims& end, const Dims& strides,
                            const StridedSliceMasks& masks, StridedSliceSpec* spec);

}  // namespace graft::cpu
