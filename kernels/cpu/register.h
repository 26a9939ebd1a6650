// The CPU kernel families, each registered from its own file.
#pragma once

#include "core/runtime/kernel.h"

namespace graft::cpu {

void RegisterStructureKernels(KernelRegistry& r);  // structure_kernels.cc
void RegisterCwiseKernels(KernelRegistry& r);      // cwise_kernels.cc
void RegisterMatMulKernels(KernelRegistry& r);     // matmul_kernels.cc
void RegisterStateKernels(KernelRegistry& r);      // state_kernels.cc
void RegisterNnKernels(KernelRegistry& r);         // nn_kernels.cc
void RegisterShapeKernels(KernelRegistry& r);      // shape_kernels.cc
void RegisterDataMovementKernels(KernelRegistry& r);  // data_movement_kernels.cc
void RegisterCastKernels(KernelRegistry& r);       // cast_kernels.cc
void RegisterReductionKernels(KernelRegistry& r);  // reduction_kernels.cc
void RegisterMathKernels(KernelRegistry& r);       // math_kernels.cc
void RegisterTrainingKernels(KernelRegistry& r);   // training_kernels.cc
void RegisterConvKernels(KernelRegistry& r);      // conv_kernels.cc
void RegisterFusedElementwiseKernels(KernelRegistry& r);  // fused_elementwise_kernels.cc
void RegisterIndexingKernels(KernelRegistry& r);   // indexing_kernels.cc
void RegisterLoggingKernels(KernelRegistry& r);    // logging_kernels.cc
void RegisterStringKernels(KernelRegistry& r);     // string_kernels.cc
void RegisterRegexKernels(KernelRegistry& r);      // regex_kernels.cc
void RegisterParseExampleKernels(KernelRegistry& r);  // parse_example_kernels.cc
void RegisterSplitKernels(KernelRegistry& r);      // split_kernels.cc
void RegisterSequenceKernels(KernelRegistry& r);   // sequence_kernels.cc
void RegisterBatchMatMulKernels(KernelRegistry& r);  // batch_matmul_kernels.cc
void RegisterEinsumKernels(KernelRegistry& r);     // einsum_kernels.cc
void RegisterNnGradKernels(KernelRegistry& r);     // nn_grad_kernels.cc
void RegisterCheckpointKernels(KernelRegistry& r);  // checkpoint_kernels.cc
void RegisterFileKernels(KernelRegistry& r);        // file_kernels.cc
void RegisterLookupKernels(KernelRegistry& r);      // lookup_kernels.cc
void RegisterTensorListKernels(KernelRegistry& r);  // tensor_list_kernels.cc
void RegisterStackKernels(KernelRegistry& r);       // stack_kernels.cc
void RegisterSegmentKernels(KernelRegistry& r);     // segment_kernels.cc
void RegisterSparseVariableKernels(KernelRegistry& r);  // sparse_variable_kernels.cc
void RegisterScatterNdKernels(KernelRegistry& r);   // scatter_nd_kernels.cc
void RegisterImageKernels(KernelRegistry& r);       // image_kernels.cc
void RegisterBucketizeKernels(KernelRegistry& r);   // bucketize_kernels.cc
void RegisterStatelessRandomKernels(KernelRegistry& r);  // stateless_random_kernels.cc
void RegisterStringHashKernels(KernelRegistry& r);  // string_hash_kernels.cc
void RegisterStringSplitKernels(KernelRegistry& r);  // string_split_kernels.cc
void RegisterCollectiveKernels(KernelRegistry& r);  // collective_kernels.cc: over CollectiveTransport
// Kernels that never touch elements: they read only dims (Shape, ShapeN, Size, Rank, whose
// outputs are in host memory), give a tensor other dims over the same buffer (Reshape,
// ExpandDims, Squeeze) or pass it on. Any device whose tensors are buffers registers them too
// (kernels/opencl).
void RegisterDimsKernels(KernelRegistry& r, const char* device_type);      // shape_kernels.cc
void RegisterForwardKernels(KernelRegistry& r, const char* device_type);  // Identity and kin, EnsureShape: structure_kernels.cc
// Last: float16/bfloat16 kernels made from the float32 kernels registered before it.
void RegisterFloat16Kernels(KernelRegistry& r);     // float16_kernels.cc

}  // namespace graft::cpu

namespace graft {

// Registers every CPU kernel family above into registry (register.cc). The library's
// composition root (c_api/src/composition_root.cc) calls it once; core never does.
void RegisterBuiltinKernels(KernelRegistry& registry);

}  // namespace graft
