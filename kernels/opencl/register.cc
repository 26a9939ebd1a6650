#include "kernels/opencl/register.h"

#include "kernels/opencl/opencl_device.h"

namespace graft::opencl {

void RegisterOpenCl(KernelRegistry& r) {
  RegisterElementwiseKernels(r);
  RegisterMatMulKernels(r);
  RegisterOpenClDevices();
}

}  // namespace graft::opencl
