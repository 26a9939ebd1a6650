#include "kernels/opencl/register.h"

#include "kernels/cpu/register.h"
#include "kernels/opencl/opencl_device.h"

namespace graft::opencl {

void RegisterOpenCl(KernelRegistry& r) {
  RegisterElementwiseKernels(r);
  RegisterMatMulKernels(r);
  RegisterNnKernels(r);
  RegisterReduceKernels(r);
  RegisterDataKernels(r);
  RegisterConvKernels(r);
  RegisterPoolKernels(r);
  for (const char* device : {kDeviceGpu, kDeviceOpenCl}) {  // the CPU's: they only pass buffers on
    cpu::RegisterDimsKernels(r, device);
    cpu::RegisterForwardKernels(r, device);
  }
  RegisterFloat16Kernels(r);  // wraps the float32 kernels registered above
  RegisterOpenClDevices();
}

}  // namespace graft::opencl
