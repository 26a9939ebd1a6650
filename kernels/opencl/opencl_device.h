// The OpenCL device: each OpenCL device found (cl_runtime.h) is a Graft device —
// "/device:GPU:N" for GPUs and accelerators, "/device:OPENCL:N" for CPU devices such as PoCL —
// whose tensors live in device buffers. Kernels registered for device types "GPU" and
// "OPENCL" run there (kernels/opencl/register.cc); the executor copies values across.
#pragma once

#include <memory>
#include <string>

#include "core/runtime/device.h"
#include "kernels/opencl/cl_runtime.h"

namespace graft::opencl {

inline constexpr const char kDeviceGpu[] = "GPU";
inline constexpr const char kDeviceOpenCl[] = "OPENCL";

class OpenClDevice final : public Device {
 public:
  OpenClDevice(std::string type, int index, std::shared_ptr<ClContext> context);
  const std::string& name() const override { return name_; }
  const std::string& type() const override { return type_; }
  Status CopyFromHost(const Tensor& host, Tensor* out) override;
  Status CopyToHost(const Tensor& device, Tensor* out) override;
  Status Allocate(DType dtype, std::span<const int64_t> dims, Tensor* out) override;
  DeviceDescription Describe() const override { return context_->info().description; }

  ClContext& cl() const { return *context_; }

 private:
  std::string type_, name_;
  std::shared_ptr<ClContext> context_;  // shared by every session's device for it
};

// Registers the OpenCL device type's factory (GPU and OPENCL devices) with DeviceRegistry.
// The devices are found, and their contexts made, once per process on first use; each
// session's device set wraps the same contexts (so programs are built once per process).
void RegisterOpenClDevices();

}  // namespace graft::opencl
