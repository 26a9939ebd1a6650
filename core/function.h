// Function instantiation: a FunctionDef of a graph's library made into a graph of its own that
// the executor can run. Arguments become Placeholders named after them, the body's nodes keep
// their names, and results are the tensors the FunctionDef's `ret` map names. The traced
// functions of the tracer and the call ops (PartitionedCall, StatefulPartitionedCall) both
// run functions this way.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph.h"

namespace graft {

// How deeply library functions may nest: calls at run time (FunctionRunner::kMaxCallDepth) and
// the gradients built through calls, If and While (core/gradients/function_gradient_chain.h).
// Each level takes native stack, so this also bounds the stack either takes.
inline constexpr int kMaxFunctionNesting = 64;

struct FunctionBody {
  std::string name;
  std::unique_ptr<Graph> graph;
  std::vector<Output> args;             // one Placeholder per input argument, in order
  std::vector<std::string> arg_names;
  std::vector<Output> rets;             // one tensor per output argument, in order
  std::vector<std::string> ret_names;
  // Ops that run on every call even when no result depends on them: the FunctionDef's
  // control outputs and every stateful op of the body (variable updates, prints), as
  // TensorFlow runs them.
  std::vector<const Node*> targets;
};

// Instantiates function `name` of `library` into a graph with the given versions. The body
// graph shares the library (no copy), so functions it calls are instantiated from the same
// snapshot in turn. Errors name the function and the node or argument that is wrong.
Status InstantiateFunction(const FunctionLibrary& library, const GraphDefVersions& versions, std::string_view name,
                           std::unique_ptr<FunctionBody>* out);

}  // namespace graft
