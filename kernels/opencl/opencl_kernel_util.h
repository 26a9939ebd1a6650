// Helpers of the OpenCL kernels: the device a kernel runs on, setting a kernel's arguments
// and launching it over n work items, with errors naming the kernel.
#pragma once

#include <string>
#include <string_view>

#include "core/runtime/kernel.h"
#include "kernels/opencl/opencl_device.h"

namespace graft::opencl {

inline Status DeviceOf(const OpKernelContext& ctx, OpenClDevice** out) {
  *out = dynamic_cast<OpenClDevice*>(ctx.device());
  if (*out == nullptr) return errors::Internal("an OpenCL kernel ran on a device that is not an OpenCL device");
  return Status::Ok();
}

inline Status CheckInt32(int64_t n, std::string_view what) {
  if (n > INT32_MAX) return errors::Unimplemented("OpenCL kernels take up to 2^31 - 1 ", what, ", not ", n);
  return Status::Ok();
}

// Sets arguments 0, 1, ... of k (hold the context's lock).
template <typename... Args>
Status SetArgs(cl_kernel k, const Args&... args) {
  cl_uint i = 0;
  cl_int err = CL_SUCCESS;
  ((err = err == CL_SUCCESS ? clSetKernelArg(k, i++, sizeof(Args), &args) : err), ...);
  return ClStatus(err, "setting a kernel's arguments");
}

// Enqueues k over n work items in groups of up to 64 (hold the context's lock).
inline Status Launch1D(ClContext& cl, cl_kernel k, int64_t n, const std::string& name) {
  const size_t local = 64;
  const size_t global = (static_cast<size_t>(n) + local - 1) / local * local;
  return ClStatus(clEnqueueNDRangeKernel(cl.queue(), k, 1, nullptr, &global, &local, 0, nullptr, nullptr),
                  StrCat("running kernel '", name, "'"));
}

}  // namespace graft::opencl
