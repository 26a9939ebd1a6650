#include "core/ops/builtin_ops.h"

namespace graft {

void RegisterBuiltinOps(OpRegistry& r) {
  ops::RegisterStructureOps(r);
  ops::RegisterShapeOps(r);
  ops::RegisterDataMovementOps(r);
  ops::RegisterIndexingOps(r);
  ops::RegisterSequenceOps(r);
  ops::RegisterMathOps(r);
  ops::RegisterNnOps(r);
  ops::RegisterRandomOps(r);
  ops::RegisterStateOps(r);
  ops::RegisterControlFlowOps(r);
  ops::RegisterFunctionalOps(r);
  ops::RegisterIoOps(r);
  ops::RegisterImageOps(r);
  ops::RegisterLookupOps(r);
  ops::RegisterCollectiveOps(r);
}

void RegisterBuiltinGradients(GradientRegistry& r) {
  ops::RegisterMathGradients(r);
  ops::RegisterNnGradients(r);
  ops::RegisterArrayGradients(r);
  ops::RegisterCallGradients(r);
  ops::RegisterHostFunctionGradients(r);
  ops::RegisterControlFlowGradients(r);
  ops::RegisterImageGradients(r);
  ops::RegisterRandomGradients(r);
}

}  // namespace graft
