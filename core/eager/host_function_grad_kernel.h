// The kernel of GraftHostFunctionGrad, the gradient of a host function op (EagerPyFunc): it
// lives with the eager runtime because it runs the host function under a gradient tape.
#pragma once

#include "core/runtime/kernel.h"

namespace graft::eager {

void RegisterHostFunctionGradKernels(KernelRegistry& registry);

}  // namespace graft::eager
