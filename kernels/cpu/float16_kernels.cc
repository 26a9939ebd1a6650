// float16 and bfloat16 arithmetic: each op that TensorFlow defines for 16-bit floats and that
// has a float32 CPU kernel runs that kernel on widened copies of its 16-bit inputs, and its
// 16-bit outputs are rounded back to nearest even -- what TensorFlow's CPU kernels do per op
// (Eigen's half and bfloat16 compute in float32). One adapter serves elementwise ops,
// reductions, MatMul, convolutions and the rest, so there is no second copy of any kernel.
//
// Registered last (RegisterFloat16Kernels runs after every other family) so it sees every
// float32 kernel. Ops that write state (references, resources, stateful ops) are left out:
// widening would make them update a copy.
#include <algorithm>
#include <memory>
#include <vector>

#include "core/float16.h"
#include "core/op_registry.h"
#include "core/runtime/device.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {

namespace {

// Runs the float32 kernel of the node's op on widened inputs and narrows its outputs.
class ComputeInFloat32Kernel : public OpKernel {
 public:
  ComputeInFloat32Kernel(const Node& node, std::unique_ptr<OpKernel> inner)
      : OpKernel(node), inner_(std::move(inner)) {}

  bool IsCheap() const override { return inner_->IsCheap(); }

  Status Compute(OpKernelContext& ctx) const override {
    const int n_in = ctx.num_inputs();
    std::vector<Tensor> widened(static_cast<size_t>(n_in));
    std::vector<Tensor*> inputs(static_cast<size_t>(n_in));
    std::vector<uint8_t> forwardable(static_cast<size_t>(n_in), 0);
    for (int i = 0; i < n_in; ++i) {
      const Tensor& in = ctx.input(i);
      if (in.valid() && Is16BitFloat(in.dtype())) {
        GRAFT_RETURN_IF_ERROR(WidenToFloat32(in, &widened[static_cast<size_t>(i)]));
        inputs[static_cast<size_t>(i)] = &widened[static_cast<size_t>(i)];
        forwardable[static_cast<size_t>(i)] = 1;  // a private copy: the kernel may write into it
      } else {
        inputs[static_cast<size_t>(i)] = const_cast<Tensor*>(&in);  // read only: never forwarded
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
        GRAFT_RETURN_IF_ERROR(NarrowFromFloat32(out, want, /*truncate=*/false, &narrowed));
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

// Whether widening the op's inputs keeps its meaning: no references, resources or state.
bool IsPureDataOp(const OpDef& def) {
  if (def.is_stateful) return false;
  for (const auto* args : {&def.inputs, &def.outputs}) {
    for (const OpArgDef& a : *args) {
      if (a.is_ref || a.type == DType::kResource || a.type == DType::kVariant) return false;
    }
  }
  return true;
}

bool Admits(const OpAttrDef& attr, DType dtype) {
  if (!attr.allowed_values) return true;
  const auto* list = attr.allowed_values->get<std::vector<DType>>();
  return list == nullptr || std::find(list->begin(), list->end(), dtype) != list->end();
}

}  // namespace

void RegisterFloat16Kernels(KernelRegistry& r) {
  for (const std::string& op : r.Ops(kDeviceCpu)) {
    const OpRegistration* reg = OpRegistry::Global().Find(op);
    const OpAttrDef* t = reg ? reg->def.FindAttr("T") : nullptr;
    if (t == nullptr || t->type != AttrType::kType || !IsPureDataOp(reg->def)) continue;
    const std::vector<DType> have = r.DTypes(op, kDeviceCpu, "T");
    if (std::find(have.begin(), have.end(), DType::kFloat32) == have.end()) continue;
    std::vector<DType> add;
    for (DType d : {DType::kFloat16, DType::kBFloat16}) {
      if (Admits(*t, d) && std::find(have.begin(), have.end(), d) == have.end()) add.push_back(d);
    }
    if (add.empty()) continue;
    KernelFactory float32;
    if (!r.FindForDType(op, kDeviceCpu, "T", DType::kFloat32, &float32).ok()) continue;
    (void)r.Register(op, kDeviceCpu, "T", std::move(add),
                     [float32](const Node& node, std::unique_ptr<OpKernel>* out) -> Status {
                       std::unique_ptr<OpKernel> inner;
                       GRAFT_RETURN_IF_ERROR(float32(node, &inner));
                       *out = std::make_unique<ComputeInFloat32Kernel>(node, std::move(inner));
                       return Status::Ok();
                     });
  }
}

}  // namespace graft::cpu
