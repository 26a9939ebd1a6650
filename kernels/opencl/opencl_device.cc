#include "kernels/opencl/opencl_device.h"

#include "core/runtime/device_set.h"
#include "core/unload.h"

namespace graft::opencl {

OpenClDevice::OpenClDevice(std::string type, int index, std::shared_ptr<ClContext> context)
    : type_(std::move(type)), context_(std::move(context)) {
  name_ = StrCat("/job:localhost/replica:0/task:0/device:", type_, ":", index);
}

Status OpenClDevice::Allocate(DType dtype, std::span<const int64_t> dims, Tensor* out) {
  int64_t n = 0;
  size_t bytes = 0;
  GRAFT_RETURN_IF_ERROR(FixedSizeByteCount(dtype, dims, &n, &bytes));
  std::shared_ptr<ClBuffer> buffer;
  GRAFT_RETURN_IF_ERROR(context_->Allocate(bytes, &buffer));
  return Tensor::OnBuffer(dtype, dims, std::move(buffer), out);
}

Status OpenClDevice::CopyFromHost(const Tensor& host, Tensor* out) {
  if (host.dtype() == DType::kString || DTypeSize(host.dtype()) == 0) {
    return errors::InvalidArgument(DTypeName(host.dtype()), " tensors cannot be copied to ", name_);
  }
  Tensor t;
  GRAFT_RETURN_IF_ERROR(Allocate(host.dtype(), host.dims(), &t));
  cl_mem mem = nullptr;
  GRAFT_RETURN_IF_ERROR(ClMem(t, "the copy", &mem));
  // Graft's own host memory is queued (nothing writes it in place while the copy holds it); a
  // caller's borrowed memory is copied before this returns.
  std::shared_ptr<TensorBuffer> source = host.buffer()->reusable() ? host.buffer() : nullptr;
  GRAFT_RETURN_IF_ERROR(context_->Write(mem, host.raw_data(), host.byte_size(), std::move(source)));
  *out = std::move(t);
  return Status::Ok();
}

Status OpenClDevice::CopyToHost(const Tensor& device, Tensor* out) {
  cl_mem mem = nullptr;
  if (!ClMem(device, "", &mem).ok()) {  // already host memory (a host-memory value)
    *out = device;
    return Status::Ok();
  }
  Tensor t;
  GRAFT_RETURN_IF_ERROR(Tensor::AllocateUninitialized(device.dtype(), device.dims(), &t));
  GRAFT_RETURN_IF_ERROR(context_->Read(mem, t.raw_data(), t.byte_size()));
  *out = std::move(t);
  return Status::Ok();
}

namespace {

// The process's OpenCL contexts, made on first use (a function-local static: thread-safe).
const std::vector<std::shared_ptr<ClContext>>& Contexts() {
  static const std::vector<std::shared_ptr<ClContext>>* contexts = [] {
    auto* list = new std::vector<std::shared_ptr<ClContext>>();
    for (const ClDeviceInfo& info : FindClDevices()) {
      std::unique_ptr<ClContext> context;
      if (ClContext::Create(info, &context).ok()) list->push_back(std::move(context));  // else left out
    }
    return DeleteAtUnload(list);  // never destroyed at exit; released at dlclose (core/unload.h)
  }();
  return *contexts;
}

}  // namespace

void RegisterOpenClDevices() {
  auto make = [] {
    std::vector<std::unique_ptr<Device>> devices;
    int gpus = 0, others = 0;
    for (const auto& context : Contexts()) {
      const bool gpu = context->info().is_gpu;
      devices.push_back(
          std::make_unique<OpenClDevice>(gpu ? kDeviceGpu : kDeviceOpenCl, gpu ? gpus++ : others++, context));
    }
    return devices;
  };
  // The factory serves both types: registering it under one name is enough.
  (void)DeviceRegistry::Global().Register(kDeviceOpenCl, make);
}

}  // namespace graft::opencl
