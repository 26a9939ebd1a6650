// Device-side building blocks shared by the OpenCL kernel families: a strided copy (transposes
// and slices, data_kernels.cc), a reduction over any set of dims (reduce_kernels.cc), reading a
// small input's values on the host, and a temporary device buffer.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/runtime/kernel.h"
#include "core/tensor.h"
#include "kernels/opencl/opencl_device.h"

namespace graft::opencl {

using Dims = std::vector<int64_t>;

// out[i] = in[base + sum_d c_d * strides[d]] over the coordinates c of i in dims (row-major),
// for n = prod(dims) elements of dtype's size. Adjacent dims that are contiguous in `in` and
// dims of size 1 are merged away first; more than 8 left is kUnimplemented.
Status StridedCopy(OpenClDevice& device, DType dtype, cl_mem in, cl_mem out, int64_t base, const Dims& dims,
                   const Dims& strides);

// dims/strides with size-1 dims dropped and each dim merged into the one before it where the
// two are contiguous (stride[d - 1] == stride[d] * dims[d]): the same elements, fewer dims.
void MergeDims(const Dims& dims, const Dims& strides, Dims* merged_dims, Dims* merged_strides);

enum class ReduceOp { kSum, kMean, kProd, kMax, kMin };

// Reduces x (float32 or float64, in device memory) over the dims where reduced[d] is true into
// out, which holds x's dims without (or, same count, with size 1 at) the reduced ones.
Status Reduce(OpenClDevice& device, const Tensor& x, const std::vector<bool>& reduced, ReduceOp op, cl_mem out);

// The values of a small integer input (int16/int32/int64: axes, perm, begin, shapes) on the
// host, read back from the device when it is there.
Status HostIndices(OpenClDevice& device, const Tensor& t, const char* what, Dims* out);

// Runs the node's CPU kernel on host copies of ctx's inputs and puts its outputs on the device:
// for the attr combinations an OpenCL kernel leaves out (a kernel that fails does not fall back
// to the CPU), at the cost of the copies.
Status RunOnHost(OpKernelContext& ctx, OpenClDevice& device);

// Row-major strides of dims, in elements.
Dims RowMajor(const Dims& dims);

}  // namespace graft::opencl
