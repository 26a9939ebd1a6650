// FunctionGradientChain: the library functions whose gradients are being built, one inside the
// other. A call's, an If's or a While's gradient builds the gradient of the function it calls
// by running AddGradients on that function's body, which meets the calls of the body in turn;
// without a check, a function that calls itself (directly, through others, through an If
// branch or a While body) recurses until the stack overflows, and so does a very long chain of
// calls. Each nested build enters its function below the chain of its caller, which refuses
// recursion ("calls itself") and nesting deeper than the runtime allows calls to nest
// (kMaxFunctionNesting, "nested too deeply"), as the forward run does.
//
// The chain is passed down explicitly (GradientsOptions::function_chain, then
// GradientContext::function_chain), one link on the stack of each nested build: no global or
// per-thread state, so unrelated gradient builds never see each other's functions. Functions
// are told apart by name: every body along a chain is instantiated from its caller's library
// (or that library grown by the gradient functions nested builds added, under new names), so
// along one chain a name is one function.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace graft {

// One link: a function whose gradient is being built, and the chain it was entered from.
struct FunctionGradientChain {
  std::string function;
  const FunctionGradientChain* caller = nullptr;  // nullptr: the outermost function
  int depth = 1;                                  // 1 for the outermost function
};

// Enters `function` below `caller` (nullptr: none) into *out. Errors (InvalidArgument) name the
// function: "function 'f' calls itself (f -> g -> f): cannot build its gradient", and "the
// gradient of function 'f' is nested too deeply (limit N)".
Status EnterFunctionGradient(const FunctionGradientChain* caller, std::string_view function,
                             FunctionGradientChain* out);

}  // namespace graft
