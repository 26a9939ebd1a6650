// Devices: where kernels run. The CPU is the first; the OpenCL device of a later issue plugs
// in as another Device (registered with DeviceRegistry, device_set.h) with its own kernels in
// the KernelRegistry (keyed by device type) and copies to and from host memory. Placement
// picks the op's requested device when it has a kernel for the op, and the CPU otherwise.
// A device is shared by every run of its session at once: its methods must be thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/status.h"
#include "core/tensor.h"

namespace graft {

// What a device is, for listings (`graft devices`, graft_device_list).
struct DeviceDescription {
  std::string model;   // "NVIDIA H100", "pthread-znver3" (PoCL), the CPU's model name
  std::string vendor;
  std::string driver;  // driver and runtime versions, where there are such
  int64_t memory_bytes = 0;  // global memory (the host's RAM for the CPU), 0 when unknown
  int64_t compute_units = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  // "/job:localhost/replica:0/task:0/device:CPU:0"
  virtual const std::string& name() const = 0;
  // "CPU": the key kernels register under.
  virtual const std::string& type() const = 0;
  // Host memory in, device memory out (and back). The CPU's memory is host memory.
  virtual Status CopyFromHost(const Tensor& host, Tensor* out) = 0;
  virtual Status CopyToHost(const Tensor& device, Tensor* out) = 0;
  // A tensor of dtype and dims in this device's memory, uninitialized (what
  // OpKernelContext::AllocateOutput gives kernels running here). Host memory by default.
  virtual Status Allocate(DType dtype, std::span<const int64_t> dims, Tensor* out) {
    return Tensor::AllocateUninitialized(dtype, dims, out);
  }
  virtual DeviceDescription Describe() const { return {}; }
};

class CpuDevice final : public Device {
 public:
  const std::string& name() const override { return name_; }
  const std::string& type() const override { return type_; }
  Status CopyFromHost(const Tensor& host, Tensor* out) override {
    *out = host;
    return Status::Ok();
  }
  Status CopyToHost(const Tensor& device, Tensor* out) override {
    *out = device;
    return Status::Ok();
  }
  // The host: its CPU's model name and vendor (/proc/cpuinfo), the kernel's release as the
  // driver, physical RAM (sysconf), hardware threads as compute units (cpu_device.cc).
  DeviceDescription Describe() const override;

 private:
  std::string name_ = "/job:localhost/replica:0/task:0/device:CPU:0";
  std::string type_ = "CPU";
};

inline constexpr const char kDeviceCpu[] = "CPU";

}  // namespace graft
