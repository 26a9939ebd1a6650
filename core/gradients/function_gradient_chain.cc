// The chain of functions whose gradients are being built: see function_gradient_chain.h.
#include "core/gradients/function_gradient_chain.h"

#include <vector>

#include "core/function.h"
#include "core/str_cat.h"

namespace graft {

Status EnterFunctionGradient(const FunctionGradientChain* caller, std::string_view function,
                             FunctionGradientChain* out) {
  // The chain is at most kMaxFunctionNesting long, so the scan is cheap.
  for (const FunctionGradientChain* c = caller; c != nullptr; c = c->caller) {
    if (c->function != function) continue;
    std::vector<const std::string*> path;  // from the earlier entry of function to the caller
    for (const FunctionGradientChain* p = caller; p != c->caller; p = p->caller) path.push_back(&p->function);
    std::string through;
    for (auto it = path.rbegin(); it != path.rend(); ++it) through.append(**it).append(" -> ");
    through.append(function);
    return errors::InvalidArgument("function '", function, "' calls itself (", through,
                                   "): cannot build its gradient");
  }
  const int depth = caller == nullptr ? 1 : caller->depth + 1;
  if (depth > kMaxFunctionNesting) {
    return errors::InvalidArgument("the gradient of function '", function, "' is nested too deeply (limit ",
                                   kMaxFunctionNesting, ")");
  }
  *out = FunctionGradientChain{std::string(function), caller, depth};
  return Status::Ok();
}

}  // namespace graft
