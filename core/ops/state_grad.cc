// Gradients of variable reads: the gradient of ReadVariableOp flows to the variable's handle,
// which stands for the variable as a source (GradientTape.gradient(loss, variable)).
#include <cstdio>
#include <cstdlib>

#include "core/gradients/gradient_context.h"
#include "core/ops/builtin_ops.h"

namespace graft::ops {
namespace {

Status ReadVariableOpGrad(GradientContext& ctx) {
  ctx.set_grad(0, ctx.grad());
  return Status::Ok();
}

}  // namespace

void RegisterStateGradients(GradientRegistry& r) {
  Status s = r.Register("ReadVariableOp", ReadVariableOpGrad);
  if (!s.ok()) {
    std::fprintf(stderr, "graft: invalid built-in gradient: %s\n", s.message().c_str());
    std::abort();
  }
}

}  // namespace graft::ops
