// float16 and bfloat16 tensors to and from float32, for the kernels that compute 16-bit float
// ops in float32 (float16_kernels.cc) and for Cast.
#pragma once

#include "core/runtime/kernel.h"

namespace graft::cpu {

bool Is16BitFloat(DType dtype);
// A float32 copy of a float16 or bfloat16 tensor.
Status WidenToFloat32(const Tensor& in, Tensor* out);
// A float16 or bfloat16 copy of a float32 tensor, rounded to nearest even (or, with
// truncate, truncated as Cast's Truncate attr asks).
Status NarrowFromFloat32(const Tensor& in, DType dtype, bool truncate, Tensor* out);

}  // namespace graft::cpu
