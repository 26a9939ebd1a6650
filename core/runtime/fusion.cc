#include "core/runtime/fusion.h"

#include <cmath>
#include <map>
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

// Makes spec in scratch, named after base (its errors name that op; a name of its own, since
// the plan's aliases are keyed by tensor names and one shared with an aliased node would
// resolve to itself), over placeholders that stand for ins (the plan wires the real ones):
// each input an argument of its own, or with list_rest the first one and the rest as one list
// argument. nullptr when the scratch graph refuses it.
Node* MakeFused(Graph* scratch, const std::string& base, NodeSpec spec, const std::vector<Output>& ins,
                bool list_rest) {
  spec.name = base + "/_graft_fused/";
  std::vector<Output> standins;
  for (size_t i = 0; i < ins.size(); ++i) {
    NodeSpec p;
    p.type = "Placeholder";
    p.name = base + "/_fused_input" + std::to_string(i) + "/";
    p.attrs["dtype"] = AttrValue::Type(BaseDType(ins[i].node->output_type(ins[i].index)));
    p.device = spec.device;
    Node* ph = nullptr;
    if (!scratch->AddNode(std::move(p), &ph).ok()) return nullptr;
    standins.push_back(Output{ph, 0});
  }
  if (list_rest) {
    spec.inputs.push_back(NodeSpec::InputArg{{standins[0]}, false});
    spec.inputs.push_back(NodeSpec::InputArg{std::vector<Output>(standins.begin() + 1, standins.end()), true});
  } else {
    for (const Output& o : standins) spec.inputs.push_back(NodeSpec::InputArg{{o}, false});
  }
  Node* out = nullptr;
  return scratch->AddNode(std::move(spec), &out).ok() ? out : nullptr;
}

bool IsFusableUnary(const std::string& type) {
  static const char* const kOps[] = {"Neg", "Abs",  "Square",  "Sqrt", "Rsqrt", "Exp",
                                     "Log", "Tanh", "Sigmoid", "Relu", "Sin",   "Cos"};
  for (const char* op : kOps) {
    if (type == op) return true;
  }
  return false;
}

bool IsFusableBinary(const std::string& type) {
  static const char* const kOps[] = {"AddV2", "Add", "Sub", "Mul", "Maximum", "Minimum", "SquaredDifference"};
  for (const char* op : kOps) {
    if (type == op) return true;
  }
  return false;
}

// A side input of static shape s stays inside a chain of static shape chain: it is a scalar
// (every dim 1, no more dims than the chain) or, fully known, the chain's trailing dims.
bool SideFits(const PartialShape& s, const PartialShape& chain) {
  if (!s.known_rank() || !chain.known_rank() || s.rank() > chain.rank() || !s.IsFullyDefined()) return false;
  bool ones = true;
  for (int64_t d : s.dims()) ones = ones && d == 1;
  if (ones) return true;
  const int skip = chain.rank() - s.rank();
  for (int i = 0; i < s.rank(); ++i) {
    if (chain.dim(skip + i) != s.dim(i)) return false;
  }
  return true;
}

// The only consumer of n's output 0 in the whole graph is one node.
bool SingleUse(const Node& n) { return n.num_outputs() == 1 && n.consumers(0).size() == 1; }

}  // namespace

std::vector<std::pair<size_t, Node*>> FuseElementwiseChains(std::vector<PlannedNode>& nodes, const FusionContext& ctx,
                                                             std::unordered_map<std::string, Output>* alias) {
  std::vector<std::pair<size_t, Node*>> replaced;
  if (ctx.scratch == nullptr) return replaced;
  std::map<std::pair<const Node*, int>, int> uses;  // within the plan
  for (const PlannedNode& p : nodes) {
    for (const Output& in : p.inputs) ++uses[{in.node, in.index}];
  }
  struct Chain {
    Output start;
    std::vector<Output> sides;
    std::vector<std::string> ops;
    std::vector<int64_t> args;
    std::vector<size_t> members;  // plan indices, in order
  };
  std::vector<Chain> chains;
  std::map<const Node*, size_t> chain_ending_at;  // the last node of each chain so far
  for (size_t k = 0; k < nodes.size(); ++k) {
    const PlannedNode& p = nodes[k];
    const Node& n = *p.node;
    const bool unary = IsFusableUnary(n.type()) && p.inputs.size() == 1;
    const bool binary = IsFusableBinary(n.type()) && p.inputs.size() == 2;
    if (p.folded || (!unary && !binary) || n.num_outputs() != 1 || !FloatingT(n) || !ctx.on_cpu(n) ||
        !n.output_shape(0).known_rank()) {
      continue;
    }
    const PartialShape& shape = n.output_shape(0);
    // Extend a chain that ends at one of the inputs, when this is its only use.
    for (size_t j = 0; j < p.inputs.size(); ++j) {
      const Output in = p.inputs[j];
      auto it = chain_ending_at.find(in.node);
      if (it == chain_ending_at.end() || in.index != 0 || uses[{in.node, 0}] != 1 || !ctx.absorbable(in.node) ||
          in.node->device() != n.device() || in.node->attr("T") == nullptr || n.attr("T") == nullptr ||
          !(*in.node->attr("T") == *n.attr("T")) || !(in.node->output_shape(0) == shape)) {
        continue;
      }
      if (binary && !SideFits(p.inputs[1 - j].node->output_shape(p.inputs[1 - j].index), shape)) continue;
      Chain& c = chains[it->second];
      c.ops.push_back(n.type());
      if (binary) {
        c.args.push_back(static_cast<int64_t>(c.sides.size()) * 2 + (j == 1 ? 1 : 0));
        c.sides.push_back(p.inputs[1 - j]);
      } else {
        c.args.push_back(-1);
      }
      c.members.push_back(k);
      const size_t id = it->second;
      chain_ending_at.erase(it);
      chain_ending_at[&n] = id;
      goto next_node;
    }
    {
      // Start a chain here: from the input of this node's shape (a unary op's only one).
      Chain c;
      c.ops.push_back(n.type());
      c.members.push_back(k);
      if (unary) {
        c.start = p.inputs[0];
        c.args.push_back(-1);
      } else {
        int j = -1;
        for (int i = 0; i < 2 && j < 0; ++i) {
          const Output& in = p.inputs[static_cast<size_t>(i)];
          const Output& other = p.inputs[static_cast<size_t>(1 - i)];
          if (in.node->output_shape(in.index) == shape &&
              SideFits(other.node->output_shape(other.index), shape)) {
            j = i;
          }
        }
        if (j < 0) continue;
        c.start = p.inputs[static_cast<size_t>(j)];
        c.sides.push_back(p.inputs[static_cast<size_t>(1 - j)]);
        c.args.push_back(j == 1 ? 1 : 0);
      }
      chain_ending_at[&n] = chains.size();
      chains.push_back(std::move(c));
    }
  next_node:;
  }

  std::map<std::pair<const Node*, int>, Output> redirect;
  for (const Chain& c : chains) {
    if (c.members.size() < 2) continue;
    const size_t last = c.members.back();
    const Node& tail = *nodes[last].node;
    NodeSpec spec;
    spec.type = "_GraftFusedElementwise";
    spec.device = tail.device();
    spec.attrs["T"] = *tail.attr("T");
    spec.attrs["N"] = AttrValue::Int(static_cast<int64_t>(c.sides.size()));
    spec.attrs["ops"] = AttrValue::StringList(c.ops);
    spec.attrs["args"] = AttrValue::IntList(c.args);
    std::vector<Output> ins = {c.start};
    ins.insert(ins.end(), c.sides.begin(), c.sides.end());
    Node* fused = MakeFused(ctx.scratch, tail.name(), std::move(spec), ins, /*list_rest=*/true);
    if (fused == nullptr) continue;
    redirect[{&tail, 0}] = Output{fused, 0};
    (*alias)[Graph::TensorName(Output{const_cast<Node*>(&tail), 0})] = Output{fused, 0};
    nodes[last].node = fused;
    nodes[last].inputs = ins;
    replaced.emplace_back(last, fused);
  }
  if (!redirect.empty()) {
    for (PlannedNode& p : nodes) {
      for (Output& in : p.inputs) {
        auto it = redirect.find({in.node, in.index});
        if (it != redirect.end()) in = it->second;
      }
    }
  }
  return replaced;
}

namespace {

bool IsBatchNorm(const std::string& type) {
  return type == "FusedBatchNorm" || type == "FusedBatchNormV2" || type == "FusedBatchNormV3";
}

// Output 0 of n has one consumer and its other outputs none (a batch norm's statistics).
bool OnlyFirstOutputUsedOnce(const Node& n) {
  if (n.num_outputs() < 1 || n.consumers(0).size() != 1) return false;
  for (int i = 1; i < n.num_outputs(); ++i) {
    if (!n.consumers(i).empty()) return false;
  }
  return true;
}

// An inference-mode batch norm after a convolution with a constant filter, folded into the
// filter and a bias (TensorFlow's grappler does the same): with s = scale / sqrt(variance +
// epsilon), filter' = filter * s per output channel and bias = offset - mean * s. False when
// anything is not a float32 constant of the right shape.
bool FoldBatchNorm(const Node& bn, const std::vector<Output>& bn_inputs, const Output& filter_in, bool depthwise,
                   const FusionContext& ctx, Tensor* filter, Tensor* bias) {
  const AttrValue* training = bn.attr("is_training");
  const bool* is_training = training != nullptr ? training->get<bool>() : nullptr;
  if (is_training == nullptr || *is_training || bn_inputs.size() != 5) return false;
  const AttrValue* eps_attr = bn.attr("epsilon");
  const float* eps = eps_attr != nullptr ? eps_attr->get<float>() : nullptr;
  const Tensor* f = ctx.constant(filter_in);
  if (eps == nullptr || f == nullptr || f->dtype() != DType::kFloat32 || f->rank() != 4) return false;
  // Output channel o of a [kh, kw, c, oc] filter, or c * multiplier + q of a depthwise
  // [kh, kw, c, multiplier] one, is the filter's flat index modulo the output channels.
  const int64_t oc = depthwise ? f->dim(2) * f->dim(3) : f->dim(3);
  const Tensor* p[4];
  for (int i = 0; i < 4; ++i) {
    p[i] = ctx.constant(bn_inputs[static_cast<size_t>(i + 1)]);
    if (p[i] == nullptr || p[i]->dtype() != DType::kFloat32 || p[i]->rank() != 1 || p[i]->dim(0) != oc) return false;
  }
  const float *scale = p[0]->data<float>(), *offset = p[1]->data<float>(), *mean = p[2]->data<float>(),
              *var = p[3]->data<float>();
  if (!Tensor::AllocateUninitialized(DType::kFloat32, f->dims(), filter).ok()) return false;
  const std::vector<int64_t> bias_dims = {oc};
  if (!Tensor::AllocateUninitialized(DType::kFloat32, bias_dims, bias).ok()) return false;
  std::vector<float> mul(static_cast<size_t>(oc));
  for (int64_t o = 0; o < oc; ++o) {
    mul[static_cast<size_t>(o)] = scale[o] / std::sqrt(var[o] + *eps);
    bias->data<float>()[o] = offset[o] - mean[o] * mul[static_cast<size_t>(o)];
  }
  const float* src = f->data<float>();
  float* dst = filter->data<float>();
  const int64_t n = f->num_elements();
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i] * mul[static_cast<size_t>(i % oc)];
  return true;
}

// A Const node of value in the scratch graph.
Node* ScratchConst(Graph* scratch, const std::string& name, const std::string& device, Tensor value) {
  NodeSpec spec;
  spec.type = "Const";
  spec.name = name;
  spec.device = device;
  spec.attrs["dtype"] = AttrValue::Type(value.dtype());
  spec.attrs["value"] = AttrValue::TensorValue(std::move(value));
  Node* out = nullptr;
  return scratch->AddNode(std::move(spec), &out).ok() ? out : nullptr;
}

}  // namespace

bool FuseNode(const Node& n, const std::vector<Output>& inputs, const FusionContext& ctx, FusedNode* result) {
  if (ctx.scratch == nullptr) return false;
  const Node* act = nullptr;
  const Node* mid = nullptr;  // the BiasAdd or the batch norm
  const std::vector<Output>* mid_inputs = nullptr;
  if (IsActivation(n.type()) && inputs.size() == 1) {
    act = &n;
    mid = inputs[0].node;
    if (inputs[0].index != 0 || (mid->type() != "BiasAdd" && !IsBatchNorm(mid->type())) || !ctx.absorbable(mid) ||
        !OnlyFirstOutputUsedOnce(*mid)) {
      return false;
    }
    mid_inputs = ctx.planned_inputs(mid);
  } else if ((n.type() == "BiasAdd" && inputs.size() == 2) || (IsBatchNorm(n.type()) && inputs.size() == 5)) {
    // An activation that alone consumes the sum takes it all in when its turn comes.
    if (n.consumers(0).size() == 1) {
      const Node* c = n.consumers(0)[0].node;
      if (IsActivation(c->type()) && ctx.in_plan(c) && ctx.absorbable(&n) && OnlyFirstOutputUsedOnce(n)) return false;
    }
    // A batch norm's other outputs are its statistics: nothing may read them.
    for (int i = 1; i < n.num_outputs(); ++i) {
      if (!n.consumers(i).empty()) return false;
    }
    mid = &n;
    mid_inputs = &inputs;
  } else {
    return false;
  }
  const bool batch_norm = IsBatchNorm(mid->type());
  if (mid_inputs == nullptr || mid_inputs->size() != (batch_norm ? 5u : 2u)) return false;
  const Output product = (*mid_inputs)[0];
  const Node* prod = product.node;
  const bool depthwise = prod->type() == "DepthwiseConv2dNative";
  const bool conv = prod->type() == "Conv2D" || depthwise;
  if (product.index != 0 || (!conv && (batch_norm || prod->type() != "MatMul")) || !ctx.absorbable(prod) ||
      !SingleUse(*prod)) {
    return false;
  }
  const std::vector<Output>* prod_inputs = ctx.planned_inputs(prod);
  if (prod_inputs == nullptr || prod_inputs->size() != 2 || !FloatingT(*prod) || !FloatingT(*mid)) return false;
  if (prod->device() != mid->device() || (act != nullptr && act->device() != prod->device()) || !ctx.on_cpu(*prod)) {
    return false;
  }
  const std::string mid_format = AttrString(*mid, "data_format", "NHWC");
  if (conv) {
    const std::string format = AttrString(*prod, "data_format", "NHWC");
    if ((format != "NHWC" && format != "NCHW") || mid_format != format) return false;
  } else if (mid_format != "NHWC") {
    return false;
  }

  // The fused node, over placeholders that stand for its inputs (the plan wires the real ones).
  std::vector<Output> ins = {(*prod_inputs)[0], (*prod_inputs)[1], batch_norm ? Output{} : (*mid_inputs)[1]};
  std::vector<std::pair<Node*, Tensor>> constants;
  if (batch_norm) {
    Tensor filter, bias;
    if (!FoldBatchNorm(*mid, *mid_inputs, (*prod_inputs)[1], depthwise, ctx, &filter, &bias)) return false;
    Node* f = ScratchConst(ctx.scratch, prod->name() + "/_graft_folded_filter/", prod->device(), filter);
    Node* b = f == nullptr ? nullptr : ScratchConst(ctx.scratch, prod->name() + "/_graft_folded_bias/", prod->device(), bias);
    if (b == nullptr) return false;
    ins[1] = Output{f, 0};
    ins[2] = Output{b, 0};
    constants = {{f, filter}, {b, bias}};
  }
  NodeSpec spec;
  spec.type = depthwise ? "_GraftFusedDepthwiseConv2dNative" : conv ? "_GraftFusedConv2D" : "_GraftFusedMatMul";
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
  Node* out = MakeFused(ctx.scratch, prod->name(), std::move(spec), ins, /*list_rest=*/false);
  if (out == nullptr) return false;
  result->node = out;
  result->inputs = std::move(ins);
  result->constants = std::move(constants);
  return true;
}

}  // namespace graft
