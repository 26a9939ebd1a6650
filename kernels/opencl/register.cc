#include "kernels/opencl/register.h"

#include "kernels/opencl/opencl_device.h"

namespace graft::opencl {

void RegisterOpenCl(KernelRegistry& r) {
  RegisterElementwiseKernels(r);
  RegisterMatMulKernels(r);
  RegisterNnKernels(r);
  RegisterReduceKernels(r);
  RegisterDataKernels(r);
  RegisterConvKernels(r);
  RegisterFloat16Kernels(r);  // wraps the float32 kernels registered above
  RegisterOpenClDevices();
}

}  // namespace graft::opencl
