// AddGradients: TensorFlow's tf.gradients on a Graph — adds the ops that compute the
// gradients of the sum of ys with respect to each of xs, and returns one output per x (or
// none: x does not reach any y, or only through integer/bool tensors or ops registered as not
// differentiable).
//
// The algorithm is TensorFlow's: the ops between xs and ys (reached forward from xs through
// differentiable tensors, and backward from ys) are visited in reverse topological order; the
// gradients arriving at a tensor from several consumers are summed with AddN; each op's
// gradient function (GradientRegistry, by the op's _gradient_op_type override or its type)
// adds its ops under "<scope>/<op name>_grad/". An op on the path without a gradient function
// is an error naming the op and its type. On any error the graph is left as it was.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/gradients/gradient_context.h"
#include "core/graph.h"

namespace graft {

enum class UnconnectedGradients { kNone, kZero };

struct GradientsOptions {
  // The gradient flowing into each y (empty: ones of y's shape). When given, one per y.
  std::vector<Output> grad_ys;
  // Tensors treated as constants: no gradient flows through them.
  std::vector<Output> stop_gradients;
  UnconnectedGradients unconnected = UnconnectedGradients::kNone;
  std::string scope = "gradients";  // the name scope the gradient ops go under
  // When graph is the body of a library function whose gradient is being built: the chain of
  // such functions (function_gradient_chain.h), handed to gradient functions and nested builds.
  const FunctionGradientChain* function_chain = nullptr;
};

// out gets one entry per x: the gradient, or nullopt for none (with kZero: zeros like x).
// With rows non-null, an x that only gathers reach (GatherV2 on axis 0, ResourceGather) gets
// its gradient as rows (TensorFlow's IndexedSlices): (*rows)[i] is set and (*out)[i] is its
// values; otherwise every gradient is dense and (*rows)[i] is empty.
Status AddGradients(Graph& graph, const std::vector<Output>& ys, const std::vector<Output>& xs,
                    const GradientsOptions& options, std::vector<std::optional<Output>>* out,
                    std::vector<std::optional<IndexedSlicesGrad>>* rows = nullptr);

}  // namespace graft
