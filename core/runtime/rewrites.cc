#include "core/runtime/rewrites.h"

#include <exception>
#include <map>

#include "core/runtime/denormal.h"
#include "core/runtime/fusion.h"

namespace graft {
namespace {

// An op that runs functions (While, If, PartitionedCall, ...) is never folded: its body may
// loop for as long as it likes, and preparing a run (where folding happens) has no deadline
// or cancellation; the run itself checks them between the body's kernels.
bool CallsFunctions(const Node& n) {
  for (const auto& [name, value] : n.attrs()) {
    if (value.type() == AttrType::kFunc || value.type() == AttrType::kFuncList) return true;
  }
  return false;
}

bool IsIdentityLike(const std::string& type) {
  return type == "Identity" || type == "Snapshot" || type == "StopGradient" || type == "PreventGradient";
}

}  // namespace

Status RewritePlan(const std::vector<const Node*>& order, const std::unordered_set<std::string>& fed,
                   const std::vector<Output>& fetches, const std::vector<const Node*>& targets,
                   const RewriteOptions& options, Device* device, ResourceMgr* resources,
                   const FusionSetup* fusion_setup, std::vector<PlannedNode>* plan,
                   std::unordered_map<std::string, Output>* redirect) {
  ScopedFlushDenormals flush;  // folded values must be what the kernels give when run
  std::unordered_map<std::string, Output>& alias = *redirect;
  auto resolve = [&](Output t) {
    for (;;) {
      auto it = alias.find(Graph::TensorName(t));
      if (it == alias.end()) return t;
      t = it->second;
    }
  };
  std::unordered_set<const Node*> in_order(order.begin(), order.end());
  std::unordered_set<const Node*> is_target(targets.begin(), targets.end());
  std::unordered_set<const Node*> control_needed;  // nodes some planned node depends on by control edge
  for (const Node* n : order) {
    for (const Node* c : n->control_inputs()) control_needed.insert(c);
  }
  auto fed_tensor = [&](const Output& t) { return fed.count(Graph::TensorName(t)) != 0; };

  std::vector<PlannedNode> nodes;
  std::unordered_map<const Node*, size_t> index;
  std::map<std::string, std::vector<size_t>> seen;  // CSE candidates by a cheap key
  std::unordered_set<std::string> fetched;
  for (const Output& f : fetches) fetched.insert(Graph::TensorName(f));
  FusionContext fusion;
  if (options.fusion && fusion_setup != nullptr) {
    fusion.scratch = fusion_setup->scratch;
    fusion.on_cpu = fusion_setup->on_cpu;
  }
  fusion.planned_inputs = [&](const Node* n) -> const std::vector<Output>* {
    auto it = index.find(n);
    if (it == index.end() || nodes[it->second].folded || nodes[it->second].node != n) return nullptr;
    return &nodes[it->second].inputs;
  };
  fusion.absorbable = [&](const Node* n) {
    if (is_target.count(n) || control_needed.count(n) || !n->control_inputs().empty()) return false;
    for (int i = 0; i < n->num_outputs(); ++i) {
      const std::string name = Graph::TensorName(Output{const_cast<Node*>(n), i});
      if (fed.count(name) || fetched.count(name)) return false;
    }
    return true;
  };
  fusion.in_plan = [&](const Node* n) { return in_order.count(n) != 0; };
  fusion.constant = [&](const Output& o) -> const Tensor* {
    auto it = index.find(o.node);
    if (fed_tensor(o) || it == index.end() || nodes[it->second].node != o.node) return nullptr;
    const PlannedNode& q = nodes[it->second];
    if (q.folded) return static_cast<size_t>(o.index) < q.values.size() ? &q.values[static_cast<size_t>(o.index)] : nullptr;
    const AttrValue* v = o.node->type() == "Const" ? o.node->attr("value") : nullptr;
    return v != nullptr ? v->get<Tensor>() : nullptr;
  };
  for (const Node* n : order) {
    PlannedNode p;
    p.node = n;
    for (const Output& in : n->inputs()) p.inputs.push_back(fed_tensor(in) ? in : resolve(in));
    for (const Node* c : n->control_inputs()) p.controls.push_back(c);
    bool removable = !is_target.count(n) && !control_needed.count(n) && p.controls.empty() && !n->def().is_stateful;

    if (options.remove_identity && removable && IsIdentityLike(n->type()) && n->num_inputs() == 1 &&
        !IsRefDType(n->input(0).node->output_type(n->input(0).index)) && !fed_tensor(Output{const_cast<Node*>(n), 0})) {
      alias[Graph::TensorName(Output{const_cast<Node*>(n), 0})] = p.inputs[0];
      continue;
    }
    if (options.common_subexpressions && removable && n->num_outputs() > 0 && n->type() != "Placeholder") {
      std::string key = n->type();
      key.push_back('|');
      key.append(n->device());
      for (const Output& in : p.inputs) {
        key.push_back('|');
        key.append(Graph::TensorName(in));
      }
      bool merged = false;
      for (size_t other : seen[key]) {
        const PlannedNode& q = nodes[other];
        if (q.node->attrs() != n->attrs()) continue;
        for (int i = 0; i < n->num_outputs(); ++i) {
          if (fed_tensor(Output{const_cast<Node*>(n), i})) continue;
          alias[Graph::TensorName(Output{const_cast<Node*>(n), i})] = Output{const_cast<Node*>(q.node), i};
        }
        merged = true;
        break;
      }
      if (merged) continue;
      seen[key].push_back(nodes.size());
    }
    FusedNode fused;
    if (fusion.scratch != nullptr && !fed_tensor(Output{const_cast<Node*>(n), 0}) &&
        FuseNode(*n, p.inputs, fusion, &fused)) {
      // The fused node stands for n (its controls kept); the nodes it took in go unused. The
      // constants it made (a folded filter and bias) join the plan as folded nodes.
      for (auto& [node, value] : fused.constants) {
        PlannedNode c;
        c.node = node;
        c.folded = true;
        c.values = {std::move(value)};
        index[node] = nodes.size();
        nodes.push_back(std::move(c));
      }
      alias[Graph::TensorName(Output{const_cast<Node*>(n), 0})] = Output{fused.node, 0};
      p.node = fused.node;
      p.inputs = std::move(fused.inputs);
      index[fused.node] = nodes.size();
      nodes.push_back(std::move(p));
      continue;
    }
    if (options.constant_folding && removable && n->type() != "Const" && !p.inputs.empty() && !CallsFunctions(*n) &&
        KernelRegistry::Global().HasKernel(n->type(), device->type())) {
      // All inputs constant: a Const, or a node folded already.
      std::vector<Tensor> in_values;
      size_t bytes = 0;
      bool all_const = true;
      for (const Output& in : p.inputs) {
        if (fed_tensor(in)) {
          all_const = false;
          break;
        }
        auto it = index.find(in.node);
        if (in.node->type() == "Const" && it != index.end()) {
          in_values.push_back(*in.node->attr("value")->get<Tensor>());
        } else if (it != index.end() && nodes[it->second].folded) {
          in_values.push_back(nodes[it->second].values[static_cast<size_t>(in.index)]);
        } else {
          all_const = false;
          break;
        }
        bytes += in_values.back().byte_size();
      }
      if (all_const && bytes <= options.max_folded_bytes) {
        KernelFactory factory;
        std::unique_ptr<OpKernel> kernel;
        if (KernelRegistry::Global().Find(*n, device->type(), &factory).ok() && factory(*n, &kernel).ok()) {
          std::vector<Tensor*> ptrs;
          for (Tensor& t : in_values) ptrs.push_back(&t);
          std::vector<uint8_t> forward(in_values.size(), 0);
          std::vector<Tensor> outs(static_cast<size_t>(n->num_outputs()));
          OpKernelContext ctx(*n, device, resources, std::span<Tensor* const>(ptrs.data(), ptrs.size()),
                              std::span<const uint8_t>(forward.data(), forward.size()), outs);
          size_t out_bytes = 0;
          bool ok = false;
          try {
            ok = kernel->Compute(ctx).ok();
          } catch (const std::exception&) {  // (out of memory: left to the run, which names the op)
          }
          for (const Tensor& t : outs) {
            ok = ok && t.valid();
            out_bytes += t.byte_size();
          }
          // A kernel that fails is left to fail at run time, with the run's error.
          if (ok && out_bytes <= options.max_folded_bytes) {
            p.folded = true;
            p.values = std::move(outs);
            p.inputs.clear();
          }
        }
      }
    }
    index[n] = nodes.size();
    nodes.push_back(std::move(p));
  }

  if (fusion.scratch != nullptr) {
    for (const auto& [k, fused] : FuseElementwiseChains(nodes, fusion, &alias)) {
      index[fused] = k;
    }
  }

  // Prune again: folding, aliasing and fusion may leave nodes nobody needs.
  std::unordered_set<const Node*> needed;
  std::vector<const Node*> stack;
  auto want = [&](const Node* n) {
    if (index.count(n) && needed.insert(n).second) stack.push_back(n);
  };
  for (const Output& f : fetches) {
    if (!fed_tensor(f)) want(resolve(f).node);
  }
  for (const Node* t : targets) want(t);
  while (!stack.empty()) {
    const PlannedNode& p = nodes[index.at(stack.back())];
    stack.pop_back();
    for (const Output& in : p.inputs) {
      if (!fed_tensor(in)) want(in.node);
    }
    for (const Node* c : p.controls) want(c);
  }
  plan->clear();
  for (PlannedNode& p : nodes) {
    if (needed.count(p.node)) plan->push_back(std::move(p));
  }
  return Status::Ok();
}

}  // namespace graft
