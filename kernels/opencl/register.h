// The OpenCL kernel families and the device type, registered by the library's composition root
// (c_api/src/composition_root.cc) when Graft is built with OpenCL (GRAFT_OPENCL).
#pragma once

#include "core/runtime/kernel.h"

namespace graft::opencl {

void RegisterElementwiseKernels(KernelRegistry& r);  // elementwise_kernels.cc
void RegisterMatMulKernels(KernelRegistry& r);       // matmul_kernels.cc
void RegisterNnKernels(KernelRegistry& r);           // nn_kernels.cc
void RegisterReduceKernels(KernelRegistry& r);       // reduce_kernels.cc
void RegisterDataKernels(KernelRegistry& r);         // data_kernels.cc
void RegisterConvKernels(KernelRegistry& r);         // conv_kernels.cc
void RegisterPoolKernels(KernelRegistry& r);         // pool_kernels.cc
void RegisterFloat16Kernels(KernelRegistry& r);      // float16_kernels.cc: after the others

// Every OpenCL kernel family, and the GPU/OPENCL device types (opencl_device.cc).
void RegisterOpenCl(KernelRegistry& r);

}  // namespace graft::opencl
