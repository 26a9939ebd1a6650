#include "kernels/cpu/float16_adapter.h"

#include <algorithm>
#include <string>
#include <utility>

#include "core/op_registry.h"

namespace graft::cpu {

namespace {

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

void RegisterFloat32Adapters(KernelRegistry& r, const char* device, const Float32Adapter& adapter) {
  for (const std::string& op : r.Ops(device)) {
    const OpRegistration* reg = OpRegistry::Global().Find(op);
    const OpAttrDef* t = reg ? reg->def.FindAttr("T") : nullptr;
    if (t == nullptr || t->type != AttrType::kType || !IsPureDataOp(reg->def)) continue;
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
                     [float32, adapter](const Node& node, std::unique_ptr<OpKernel>* out) -> Status {
                       std::unique_ptr<OpKernel> inner;
                       GRAFT_RETURN_IF_ERROR(float32(node, &inner));
                       *out = adapter(node, std::move(inner));
                       return Status::Ok();
                     });
  }
}

}  // namespace graft::cpu
