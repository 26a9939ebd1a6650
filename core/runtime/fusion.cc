#include "core/runtime/fusion.h"

#include <string>
#include <utility>

namespace graft {
namespace {

bool IsActivation(const std::string& type) {
  return type == "Relu" || type == "Relu6" || type == "Elu" || type == "LeakyRelu" || type == "Sigmoid" ||
         type == "Tanh";
}

std::string AttrString(const Node& n, const char* name, const char* fallback) {
  const AttrValue* v = n.attr(name);
  const std::string* s = v != nullptr ? v->get<std::string>() : nullptr;
  return s != nullptr ? *s : fallback;
}

bool FloatingT(const Node& n) {
  const AttrValue* v = n.attr("T");
  const DType* t = v != nullptr ? v->get<DType>() : nullptr;
  return t != nullptr && (*t == DType::kFloat32 || *t == DType::kFloat64);
}

// The fused kernels are the CPU's.
bool OnCpu(const Node& n) {
  return n.device().empty() || n.device().find("CPU") != std::string::npos ||
         n.device().find("cpu") != std::string::npos;
}

// The only consumer of n's output 0 in the whole graph is one node.
bool SingleUse(const Node& n) { return n.num_outputs() == 1 && n.consumers(0).size() == 1; }

}  // namespace

bool FuseNode(const Node& n, const std::vector<Output>& inputs, const FusionContext& ctx, Node** fused,
              std::vector<Output>* fused_inputs) {
  if (ctx.scratch == nullptr) return false;
  const Node* act = nullptr;
  const Node* bias_add = nullptr;
  const std::vector<Output>* bias_inputs = nullptr;
  if (IsActivation(n.type()) && inputs.size() == 1) {
    act = &n;
    bias_add = inputs[0].node;
    if (inputs[0].index != 0 || bias_add->type() != "BiasAdd" || !ctx.absorbable(bias_add) || !SingleUse(*bias_add)) {
      return false;
    }
    bias_inputs = ctx.planned_inputs(bias_add);
  } else if (n.type() == "BiasAdd" && inputs.size() == 2) {
    // An activation that alone consumes the sum takes it all in when its turn comes.
    if (SingleUse(n)) {
      const Node* c = n.consumers(0)[0].node;
      if (IsActivation(c->type()) && ctx.in_plan(c) && ctx.absorbable(&n)) return false;
    }
    bias_add = &n;
    bias_inputs = &inputs;
  } else {
    return false;
  }
  if (bias_inputs == nullptr || bias_inputs->size() != 2) return false;
  const Output product = (*bias_inputs)[0];
  const Node* prod = product.node;
  const bool conv = prod->type() == "Conv2D";
  if (product.index != 0 || (!conv && prod->type() != "MatMul") || !ctx.absorbable(prod) || !SingleUse(*prod)) {
    return false;
  }
  const std::vector<Output>* prod_inputs = ctx.planned_inputs(prod);
  if (prod_inputs == nullptr || prod_inputs->size() != 2 || !FloatingT(*prod) || !FloatingT(*bias_add)) return false;
  if (prod->device() != bias_add->device() || (act != nullptr && act->device() != prod->device()) || !OnCpu(*prod)) {
    return false;
  }
  const std::string bias_format = AttrString(*bias_add, "data_format", "NHWC");
  if (conv) {
    const std::string format = AttrString(*prod, "data_format", "NHWC");
    if ((format != "NHWC" && format != "NCHW") || bias_format != format) return false;
  } else if (bias_format != "NHWC") {
    return false;
  }

  // The fused node, over placeholders that stand for its inputs (the plan wires the real ones).
  const std::vector<Output> ins = {(*prod_inputs)[0], (*prod_inputs)[1], (*bias_inputs)[1]};
  NodeSpec spec;
  spec.type = conv ? "_GraftFusedConv2D" : "_GraftFusedMatMul";
  spec.name = prod->name() + "/";  // its errors name the convolution or product
  spec.device = prod->device();
  for (const auto& [name, value] : prod->attrs()) {
    if (name.empty() || name[0] == '_') continue;
    if (!conv && name != "T" && name != "transpose_a" && name != "transpose_b") continue;
    spec.attrs[name] = value;
  }
  spec.attrs["activation"] = AttrValue::String(act != nullptr ? act->type() : "");
  if (act != nullptr && act->type() == "LeakyRelu" && act->attr("alpha") != nullptr) {
    spec.attrs["leakyrelu_alpha"] = *act->attr("alpha");
  }
  for (size_t i = 0; i < ins.size(); ++i) {
    NodeSpec p;
    p.type = "Placeholder";
    p.name = prod->name() + "/_fused_input" + std::to_string(i) + "/";
    p.attrs["dtype"] = AttrValue::Type(BaseDType(ins[i].node->output_type(ins[i].index)));
    p.device = prod->device();
    Node* ph = nullptr;
    if (!ctx.scratch->AddNode(std::move(p), &ph).ok()) return false;
    spec.inputs.push_back(NodeSpec::InputArg{{Output{ph, 0}}, false});
  }
  Node* out = nullptr;
  if (!ctx.scratch->AddNode(std::move(spec), &out).ok()) return false;
  *fused = out;
  *fused_inputs = ins;
  return true;
}

}  // namespace graft
