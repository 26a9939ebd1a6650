// GradientContext: what a gradient function gets from the gradient builder and gives back —
// the forward op, its inputs and outputs, the incoming gradient of each output, the graph to
// add ops to (the builder has entered the op's name scope, "gradients/OP_grad/"), and one
// slot per input for the gradient that flows to it (left empty: no gradient, TF's None).
#pragma once

#include <optional>
#include <vector>

#include "core/graph.h"

namespace graft {

struct FunctionGradientChain;  // core/gradients/function_gradient_chain.h

// A gradient given as rows (TensorFlow's IndexedSlices): zero except at the rows `indices`
// (1-D int32 or int64) of a tensor of shape `dense_shape` (1-D int32), which get the matching
// rows of `values` ([len(indices)] + dense_shape[1:]); a row named twice gets both. Gathers
// give their params this form, so that an embedding's gradient costs the rows looked up.
struct IndexedSlicesGrad {
  Output values;
  Output indices;
  Output dense_shape;
};

struct GradientContext {
  GradientContext(Graph& g, Node* forward, std::vector<std::optional<Output>> out_grads)
      : graph(g), op(forward), grad_outputs(std::move(out_grads)),
        grad_inputs(static_cast<size_t>(forward->num_inputs())),
        sparse_grad_inputs(static_cast<size_t>(forward->num_inputs())) {}

  Graph& graph;
  Node* op;  // the forward op
  // The incoming gradient of each output of op: empty where none flows back. The builder
  // fills zeros for a differentiable output without a gradient when another output has one,
  // as TensorFlow does, so a function can use every differentiable output's gradient.
  std::vector<std::optional<Output>> grad_outputs;
  // What the function sets: the gradient for each input of op (empty: none).
  std::vector<std::optional<Output>> grad_inputs;
  // Or, where grad_inputs is empty, the gradient as rows (the builder makes it dense where a
  // dense gradient is needed).
  std::vector<std::optional<IndexedSlicesGrad>> sparse_grad_inputs;
  // The functions whose gradients are being built around this one (the builder's
  // GradientsOptions::function_chain; nullptr at the top): a gradient function that builds the
  // gradient of a function it calls enters it below this chain, which refuses recursion.
  const FunctionGradientChain* function_chain = nullptr;

  Output input(int i) const { return op->input(i); }
  Output output(int i) const { return Output{op, i}; }
  int num_inputs() const { return op->num_inputs(); }
  int num_outputs() const { return op->num_outputs(); }
  // The gradient of output i, or Output{} (node nullptr) for none.
  Output grad(int i = 0) const {
    const auto& g = grad_outputs[static_cast<size_t>(i)];
    return g ? *g : Output{};
  }
  void set_grad(int input, Output g) { grad_inputs[static_cast<size_t>(input)] = g; }
  void set_sparse_grad(int input, IndexedSlicesGrad g) { sparse_grad_inputs[static_cast<size_t>(input)] = g; }
};

// Whether gradients flow through tensors of dtype: floating, complex, resource and variant
// (TensorFlow's _IsBackpropagatable); integer, bool and string paths stop.
bool IsDifferentiableDType(DType dtype);

}  // namespace graft
