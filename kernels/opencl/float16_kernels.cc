// float16 and bfloat16 on the OpenCL device, as on the CPU (kernels/cpu/float16_kernels.cc):
// each op with a float32 OpenCL kernel and a type attr T that admits the 16-bit floats runs
// that kernel on inputs widened to float32 on the device, and its float32 outputs are rounded
// back to nearest even on the device (data.cl's cast_f16_f32/cast_f32_f16, widen_bf16_f32/
// narrow_f32_bf16). Registered after every other OpenCL family (register.cc).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/op_registry.h"
#include "kernels/opencl/cl_ops.h"
#include "kernels/opencl/cl_sources.h"
#include "kernels/opencl/opencl_kernel_util.h"

namespace graft::opencl {
namespace {

bool Is16BitFloat(DType d) { return d == DType::kFloat16 || d == DType::kBFloat16; }

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
  Status Compute(OpKernelContext& ctx) const override {
    OpenClDevice* device = nullptr;
    GRAFT_RETURN_IF_ERROR(DeviceOf(ctx, &device));
    const int n_in = ctx.num_inputs();
    std::vector<Tensor> widened(static_cast<size_t>(n_in));
    std::vector<Tensor*> inputs(static_cast<size_t>(n_in));
    std::vector<uint8_t> forwardable(static_cast<size_t>(n_in), 0);
    for (int i = 0; i < n_in; ++i) {
      const size_t si = static_cast<size_t>(i);
      const Tensor& in = ctx.input(i);
      if (in.valid() && Is16BitFloat(in.dtype())) {
        GRAFT_RETURN_IF_ERROR(device->Allocate(DType::kFloat32, in.dims(), &widened[si]));
        GRAFT_RETURN_IF_ERROR(Convert(*device, in.dtype() == DType::kFloat16 ? "cast_f16_f32" : "widen_bf16_f32",
                                      in, widened[si]));
        inputs[si] = &widened[si];
        forwardable[si] = 1;  // a private copy: the kernel may write into it
      } else {
        inputs[si] = const_cast<Tensor*>(&in);  // read only: never forwarded
      }
    }
    std::vector<Tensor> outputs(static_cast<size_t>(ctx.num_outputs()));
    OpKernelContext inner_ctx(ctx.node(), ctx.device(), ctx.resources(), inputs, forwardable, outputs);
    GRAFT_RETURN_IF_ERROR(inner_->Compute(inner_ctx));
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      Tensor& out = outputs[static_cast<size_t>(i)];
      const DType want = node().output_type(i);
      if (out.valid() && out.dtype() == DType::kFloat32 && Is16BitFloat(want)) {
        Tensor narrowed;
        GRAFT_RETURN_IF_ERROR(device->Allocate(want, out.dims(), &narrowed));
        GRAFT_RETURN_IF_ERROR(
            Convert(*device, want == DType::kFloat16 ? "cast_f32_f16" : "narrow_f32_bf16", out, narrowed));
        ctx.SetOutput(i, std::move(narrowed));
      } else {
        ctx.SetOutput(i, std::move(out));
      }
    }
    return Status::Ok();
  }

 private:
  std::unique_ptr<OpKernel> inner_;
};

bool Admits(const OpAttrDef& attr, DType dtype) {
  if (!attr.allowed_values) return true;
  const auto* list = attr.allowed_values->get<std::vector<DType>>();
  return list == nullptr || std::find(list->begin(), list->end(), dtype) != list->end();
}

}  // namespace

void RegisterFloat16Kernels(KernelRegistry& r) {
  for (const char* device : {kDeviceGpu, kDeviceOpenCl}) {
    for (const std::string& op : r.Ops(device)) {
      const OpRegistration* reg = OpRegistry::Global().Find(op);
      const OpAttrDef* t = reg ? reg->def.FindAttr("T") : nullptr;
      if (t == nullptr || t->type != AttrType::kType || reg->def.is_stateful) continue;
      const std::vector<DType> have = r.DTypes(op, device, "T");
      if (std::find(have.begin(), have.end(), DType::kFloat32) == have.end()) continue;
      std::vector<DType> add;
      for (DType d : {DType::kFloat16, DType::kBFloat16}) {
        if (Admits(*t, d) && std::find(have.begin(), have.end(), d) == have.end()) add.push_back(d);
      }
      if (add.empty()) continue;
      KernelFactory float32;
      if (!r.FindForDType(op, device, "T", DType::kFloat32, &float32).ok()) continue;
      (void)r.Register(op, device, "T", std::move(add),
                       [float32](const Node& node, std::unique_ptr<OpKernel>* out) -> Status {
                         std::unique_ptr<OpKernel> inner;
                         GRAFT_RETURN_IF_ERROR(float32(node, &inner));
                         *out = std::make_unique<ComputeInFloat32Kernel>(node, std::move(inner));
                         return Status::Ok();
                       });
    }
  }
}

}  // namespace graft::opencl
