// Graph rewrites applied when a run is prepared, each switchable off; results are the same
// with them on and off:
//  - identity removal: Identity, Snapshot, StopGradient and PreventGradient pass their input
//    straight to their consumers (when nothing depends on them by control edge);
//  - common-subexpression elimination: stateless ops of the same type, attrs, device and
//    inputs are computed once;
//  - constant folding: stateless ops whose inputs are all constants are computed once, when
//    the run is prepared, and become constants;
//  - fusion (fusion.h): Conv2D / MatMul + BiasAdd (+ an activation) become one fused op.
// Pruning (running only what the fetches and targets need) always happens.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/graph.h"
#include "core/runtime/device.h"
#include "core/runtime/kernel.h"

namespace graft {

struct RewriteOptions {
  bool remove_identity = true;
  bool common_subexpressions = true;
  bool constant_folding = true;
  bool fusion = true;
  // Folded values larger than this stay computed at run time.
  size_t max_folded_bytes = size_t{10} << 20;
};

// One node of a prepared plan, with its (possibly redirected) inputs.
struct PlannedNode {
  const Node* node = nullptr;
  std::vector<Output> inputs;
  std::vector<const Node*> controls;
  bool folded = false;           // a constant now: values hold its outputs
  std::vector<Tensor> values;
};

// Where fusion (fusion.h) makes its nodes, and which nodes run on the CPU (the executor's
// placement, whose fused kernels are the CPU's).
struct FusionSetup {
  Graph* scratch = nullptr;  // must outlive the plan's kernels
  std::function<bool(const Node&)> on_cpu;
};

// Applies the enabled rewrites to nodes (in dependency order, without control flow). Nodes
// that become unnecessary are dropped. *redirect maps a tensor name to the tensor that now
// stands for it (for fetches). No fusion without a fusion setup.
Status RewritePlan(const std::vector<const Node*>& order, const std::unordered_set<std::string>& fed,
                   const std::vector<Output>& fetches, const std::vector<const Node*>& targets,
                   const RewriteOptions& options, Device* device, ResourceMgr* resources,
                   const FusionSetup* fusion_setup, std::vector<PlannedNode>* plan,
                   std::unordered_map<std::string, Output>* redirect);

// The kernel of a folded node: it outputs its values.
class ValuesKernel final : public OpKernel {
 public:
  ValuesKernel(const Node& node, std::vector<Tensor> values) : OpKernel(node), values_(std::move(values)) {}
  Status Compute(OpKernelContext& ctx) const override {
    for (size_t i = 0; i < values_.size(); ++i) ctx.SetOutput(static_cast<int>(i), values_[i]);
    return Status::Ok();
  }
  bool IsCheap() const override { return true; }

 private:
  std::vector<Tensor> values_;
};

}  // namespace graft
