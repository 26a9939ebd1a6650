// Fusion (rewrites of RewritePlan, rewrites.h), for float and double on the CPU:
//  - Conv2D, DepthwiseConv2dNative or MatMul, then BiasAdd, then optionally one activation
//    (Relu, Relu6, Elu, LeakyRelu, Sigmoid, Tanh) become one _GraftFusedConv2D,
//    _GraftFusedDepthwiseConv2dNative or _GraftFusedMatMul node, whose
//    kernel adds the bias and applies the activation while each block of the product is still
//    in cache (TensorFlow's remapper makes _FusedConv2D / _FusedMatMul the same way); an
//    inference-mode batch norm after a convolution with a constant filter is folded into the
//    filter and a bias first;
//  - chains of elementwise ops (kFusableUnary / kFusableBinary below), each feeding the next
//    alone, become one _GraftFusedElementwise node: one loop over the data, no tensor between
//    the ops. The other operand of a binary op is a side input that the static shapes show is
//    a scalar or the chain's trailing dims (so the chain's shape never changes).
// The fused nodes live in a scratch graph of the run's executor; the user's graph, and so any
// exported GraphDef, never sees them.
#pragma once

#include <functional>
#include <vector>

#include "core/graph.h"
#include "core/runtime/rewrites.h"

namespace graft {

// What RewritePlan tells the fusion about the nodes it has planned so far.
struct FusionContext {
  // The planned (resolved) inputs of an earlier node of the plan, or nullptr when it is not
  // planned, or was folded to a constant.
  std::function<const std::vector<Output>*(const Node*)> planned_inputs;
  // Whether a node may disappear into a fused one: not a target, nothing depends on it by a
  // control edge, none of its outputs fed or fetched.
  std::function<bool(const Node*)> absorbable;
  // Whether a node runs in this plan.
  std::function<bool(const Node*)> in_plan;
  // The value of a tensor the plan holds as a constant (a Const, or a folded node), or nullptr.
  std::function<const Tensor*(const Output&)> constant;
  // Whether the executor places a node on the CPU, where the fused kernels are.
  std::function<bool(const Node&)> on_cpu;
  Graph* scratch = nullptr;  // where fused nodes are made
};

// A fused node, its inputs (the product's inputs, then the bias), and the constants it reads
// that the plan must hold (a batch norm folded into a filter and a bias: scratch Const nodes
// with their values).
struct FusedNode {
  Node* node = nullptr;
  std::vector<Output> inputs;
  std::vector<std::pair<Node*, Tensor>> constants;
};

// When n (its planned inputs given) ends a fusable pattern, makes the fused node in
// ctx.scratch and returns true with it; n's output 0 is then the fused node's output 0.
// False, with nothing made, otherwise. The patterns: Conv2D, DepthwiseConv2dNative or MatMul,
// then BiasAdd, then an optional activation; either convolution with a constant filter, then
// an inference-mode FusedBatchNorm (V2, V3) with constant parameters (folded into the filter
// and a bias), then an optional activation.
bool FuseNode(const Node& n, const std::vector<Output>& inputs, const FusionContext& ctx, FusedNode* result);

// Fuses the elementwise chains of a finished plan (before its pruning): for each chain, the
// node of its last op becomes the fused node, with the chain's inputs, and every use of it
// (consumers' inputs, *alias) now names the fused node; the chain's other nodes are left for
// the pruning. Returns the (plan index, fused node) pairs.
std::vector<std::pair<size_t, Node*>> FuseElementwiseChains(std::vector<PlannedNode>& nodes, const FusionContext& ctx,
                                                             std::unordered_map<std::string, Output>* alias);

}  // namespace graft
