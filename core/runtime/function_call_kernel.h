// The kernels of the function-call ops (PartitionedCall, StatefulPartitionedCall): each call
// node instantiates its function once, prepares it as an Executor (calls of one function
// inside the same outer function share it), and runs it on every call with the caller's
// resources (so variables are shared with the calling graph).
#pragma once

#include "core/runtime/kernel.h"

namespace graft {

void RegisterFunctionCallKernels(KernelRegistry& registry);

}  // namespace graft
