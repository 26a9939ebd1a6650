// Gradients through functions of a graph's library: the building blocks of the gradients of
// functional control flow (If/StatelessIf, While/StatelessWhile) and of TensorFlow 1 loops
// (which the gradient builder turns into a functional While first, see tf1_loop.h).
//
// - AddFunctionGradient: the gradient function of a library function f, built by
//   instantiating f's body and running AddGradients on it. It takes f's arguments followed by
//   the incoming gradient of each of f's results that carries one, and returns the gradient of
//   each of f's arguments that carries one (zeros where none flows), so that the gradient
//   functions of an If's two branches have the same signature.
// - AddWhileGradient: the gradient of a functional While loop. The forward op cannot keep what
//   the backward pass needs (a graph's edges are never rewired, so its users cannot be moved
//   to a rewritten op), so the loop runs once more, as a While whose body also counts the
//   iterations and pushes each iteration's loop variables onto a stack per variable (StackV2,
//   core/tensor_stack.h: O(1) a push; a variable the body returns unchanged, a loop invariant,
//   is not saved but passed along). A second While then runs the body's gradient function from
//   the last iteration to the first, popping each iteration's variables. The cost
//   is one extra forward run (linear, not quadratic), and ops with side effects in the body
//   run again in that extra run.
//
// Only floating and complex values carry gradients here (integer, bool, string, resource and
// variant values do not). New functions get unique names derived from the function they come
// from ("<f>_grad", "<f>_grad_1", ...).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/gradients/function_gradient_chain.h"
#include "core/graph.h"

namespace graft {

// Whether a value of dtype carries a gradient through a function call or a loop.
bool CarriesFunctionGradient(DType dtype);

struct FunctionGradient {
  std::string name;               // the gradient function, in the graph's library
  std::vector<int> dy_results;    // f's results whose gradients it takes (after f's arguments)
  std::vector<int> dx_arguments;  // f's arguments whose gradients it returns, in order
};

// Adds the gradient function of library function `function` to graph's library. caller: the
// functions whose gradients are being built around this one (the GradientContext's
// function_chain); `function` is entered below it, so recursion and too deep nesting are errors
// naming the function (function_gradient_chain.h).
Status AddFunctionGradient(Graph& graph, std::string_view function, FunctionGradient* out,
                           const FunctionGradientChain* caller = nullptr);

// A functional While loop: its cond and body functions and its initial loop variables.
struct WhileLoopSpec {
  std::string op_type = "StatelessWhile";  // While or StatelessWhile: the type of the new loops
  std::string cond;
  std::string body;
  std::vector<Output> inputs;                // one per loop variable
  std::vector<PartialShape> output_shapes;   // the forward loop's output_shapes attr (may be empty)
};

// Adds the gradient of the loop `spec` given the gradient arriving at each of its results
// (grads[i]: the gradient of loop variable i's final value, or empty for none; zeros are used
// for a variable that carries gradients and has none). *dx gets one entry per loop variable:
// the gradient of its initial value, or empty where the variable carries no gradient.
// caller: as for AddFunctionGradient (the body's gradient is built below it).
Status AddWhileGradient(Graph& graph, const WhileLoopSpec& spec, const std::vector<std::optional<Output>>& grads,
                        std::vector<std::optional<Output>>* dx, const FunctionGradientChain* caller = nullptr);

// A name for a new library function, derived from base and not yet used in graph's library.
std::string UniqueFunctionName(const Graph& graph, const std::string& base);

// Helpers for building functions: a fresh graph with outer's versions and library; a
// Placeholder; and writing graph fg as function `name` of graph's library (arguments args,
// named after their Placeholders; results rets "output0", ...), with the functions fg's
// library gained after its first library_size entries.
std::unique_ptr<Graph> NewFunctionGraph(const Graph& outer);
Status AddPlaceholder(Graph& g, const std::string& name, DType dtype, const PartialShape& shape, Output* out);
Status AddGraphAsFunction(Graph& graph, const Graph& fg, size_t library_size, const std::string& name,
                          const std::vector<Output>& args, const std::vector<Output>& rets);

}  // namespace graft
