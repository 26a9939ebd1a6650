// float16 and bfloat16 on the OpenCL device, as on the CPU (kernels/cpu/float16_kernels.cc):
// each op with a float32 OpenCL kernel and a type attr T that admits the 16-bit floats runs
// that kernel on inputs widened to float32 on the device, and its float32 outputs are rounded
// back to nearest even on the device (data.cl's cast_f16_f32/cast_f32_f16, widen_bf16_f32/
// narrow_f32_bf16). The adapter and the choice of ops are kernels/cpu/float16_adapter.h's;
// registered after every other OpenCL family (register.cc).
#include <memory>

#include "kernels/cpu/float16_adapter.h"
#include "kernels/opencl/cl_ops.h"
#include "kernels/opencl/cl_sources.h"
#include "kernels/opencl/opencl_kernel_util.h"

namespace graft::opencl {
namespace {

// Converts in to out (same element count) with data.cl's kernel `name`.
Status Convert(OpenClDevice& device, const char* name, const Tensor& in, const Tensor& out) {
  const int64_t n = in.num_elements();
  if (n == 0) return Status::Ok();
  GRAFT_RETURN_IF_ERROR(CheckInt32(n, "elements"));
  cl_mem im = nullptr, om = nullptr;
  GRAFT_RETURN_IF_ERROR(ClMem(in, "the 16-bit input", &im));
  GRAFT_RETURN_IF_ERROR(ClMem(out, "the converted tensor", &om));
  cl_kernel k = nullptr;
  GRAFT_RETURN_IF_ERROR(device.cl().Kernel("data", sources::kDataCl, name, &k));
  const cl_int count = static_cast<cl_int>(n);
  auto lock = device.cl().Lock();
  GRAFT_RETURN_IF_ERROR(SetArgs(k, im, om, count));
  return Launch1D(device.cl(), k, n, name);
}

class ComputeInFloat32Kernel : public OpKernel {
 public:
  ComputeInFloat32Kernel(const Node& node, std::unique_ptr<OpKernel> inner) : OpKernel(node), inner_(std::move(inner)) {}
  bool HostMemoryInput(int i) const override { return inner_->HostMemoryInput(i); }
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    return cpu::ComputeInFloat32(
        node(), *inner_, ctx,
        [device](const Tensor& in, Tensor* widened) -> Status {
          GRAFT_RETURN_IF_ERROR(device->Allocate(DType::kFloat32, in.dims(), widened));
          return Convert(*device, in.dtype() == DType::kFloat16 ? "cast_f16_f32" : "widen_bf16_f32", in, *widened);
        },
        [device](const Tensor& out, DType want, Tensor* narrowed) -> Status {
          GRAFT_RETURN_IF_ERROR(device->Allocate(want, out.dims(), narrowed));
          return Convert(*device, want == DType::kFloat16 ? "cast_f32_f16" : "narrow_f32_bf16", out, *narrowed);
        });
  }

 private:
  std::unique_ptr<OpKernel> inner_;
};

}  // namespace

void RegisterFloat16Kernels(KernelRegistry& r) {
  for (const char* device : {kDeviceGpu, kDeviceOpenCl}) {
    cpu::RegisterFloat32Adapters(r, device, [](const Node& node, std::unique_ptr<OpKernel> inner) {
      return std::unique_ptr<OpKernel>(std::make_unique<ComputeInFloat32Kernel>(node, std::move(inner)));
    });
  }
}

}  // namespace graft::opencl
