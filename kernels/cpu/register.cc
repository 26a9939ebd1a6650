#include "kernels/cpu/register.h"

namespace graft {

void RegisterBuiltinKernels(KernelRegistry& r) {
  cpu::RegisterStructureKernels(r);
  cpu::RegisterCwiseKernels(r);
  cpu::RegisterMatMulKernels(r);
  cpu::RegisterStateKernels(r);
  cpu::RegisterNnKernels(r);
  cpu::RegisterShapeKernels(r);
  cpu::RegisterDataMovementKernels(r);
  cpu::RegisterCastKernels(r);
  cpu::RegisterReductionKernels(r);
  cpu::RegisterMathKernels(r);
  cpu::RegisterTrainingKernels(r);
  cpu::RegisterConvKernels(r);
  cpu::RegisterFusedElementwiseKernels(r);
  cpu::RegisterIndexingKernels(r);
  cpu::RegisterLoggingKernels(r);
  cpu::RegisterStringKernels(r);
  cpu::RegisterRegexKernels(r);
  cpu::RegisterParseExampleKernels(r);
  cpu::RegisterSplitKernels(r);
  cpu::RegisterSequenceKernels(r);
  cpu::RegisterBatchMatMulKernels(r);
  cpu::RegisterEinsumKernels(r);
  cpu::RegisterNnGradKernels(r);
  cpu::RegisterCheckpointKernels(r);
  cpu::RegisterFileKernels(r);
  cpu::RegisterLookupKernels(r);
  cpu::RegisterTensorListKernels(r);
  cpu::RegisterStackKernels(r);
  cpu::RegisterSegmentKernels(r);
  cpu::RegisterSparseVariableKernels(r);
  cpu::RegisterScatterNdKernels(r);
  cpu::RegisterImageKernels(r);
  cpu::RegisterBucketizeKernels(r);
  cpu::RegisterStatelessRandomKernels(r);
  cpu::RegisterStringHashKernels(r);
  cpu::RegisterStringSplitKernels(r);
  cpu::RegisterCollectiveKernels(r);
  cpu::RegisterFloat16Kernels(r);  // last: it wraps the float32 kernels above
}

}  // namespace graft
