// The built-in op set, one function per family (each in its own file under core/ops/).
#pragma once

#include <cstdio>
#include <cstdlib>

#include "core/op_registry.h"

namespace graft::ops {

void RegisterStructureOps(OpRegistry& r);     // structure_ops.cc: Const, Placeholder, identities, NoOp
void RegisterShapeOps(OpRegistry& r);         // shape_ops.cc: shape queries, reshaping, Fill, BroadcastTo
void RegisterDataMovementOps(OpRegistry& r);  // data_movement_ops.cc: transpose, concat/split, tile, pad
void RegisterIndexingOps(OpRegistry& r);      // indexing_ops.cc: Slice, StridedSlice, gathers
void RegisterSequenceOps(OpRegistry& r);      // sequence_ops.cc: Range, OneHot, Where, Cumsum, TopKV2, Unique
void RegisterMathOps(OpRegistry& r);         // math_ops.cc: elementwise, comparisons, reductions, Cast
void RegisterNnOps(OpRegistry& r);           // nn_ops.cc: MatMul, convolutions, pooling, softmax, grads
void RegisterRandomOps(OpRegistry& r);       // random_ops.cc
void RegisterStateOps(OpRegistry& r);        // state_ops.cc: variables and optimizer updates
void RegisterControlFlowOps(OpRegistry& r);  // control_flow_ops.cc: v1 loops and conds
void RegisterFunctionalOps(OpRegistry& r);   // functional_ops.cc: calls, If/While, tensor lists, host functions
void RegisterIoOps(OpRegistry& r);           // io_ops.cc: checkpoints, strings, logging, ParseExample
void RegisterImageOps(OpRegistry& r);        // image_ops.cc: ResizeBilinear, ResizeNearestNeighbor, their grads
void RegisterLookupOps(OpRegistry& r);       // lookup_ops.cc: lookup tables (HashTableV2, finds, initializers)
void RegisterCollectiveOps(OpRegistry& r);   // collective_ops.cc: all-reduce, gather, broadcast across processes

// The built-in gradient functions (registered into GradientRegistry::Global() on first use).
void RegisterMathGradients(GradientRegistry& r);   // math_grad.cc: elementwise, Cast, Select, reductions
void RegisterNnGradients(GradientRegistry& r);     // nn_grad.cc: activations, MatMul, softmax, conv, pools
void RegisterArrayGradients(GradientRegistry& r);  // array_grad.cc: shape, data movement, indexing
void RegisterCallGradients(GradientRegistry& r);   // call_grad.cc: PartitionedCall, StatefulPartitionedCall
void RegisterHostFunctionGradients(GradientRegistry& r);  // host_function_grad.cc: EagerPyFunc, PyFunc
void RegisterControlFlowGradients(GradientRegistry& r);  // control_flow_grad.cc: If/While, Switch/Merge
void RegisterImageGradients(GradientRegistry& r);  // image_grad.cc: ResizeBilinear, ResizeNearestNeighbor
void RegisterRandomGradients(GradientRegistry& r);  // random_grad.cc: the stateless random ops (none)

// Registers one built-in op. A built-in spec that does not parse is a bug in Graft, caught by
// every test run: it stops the process with the reason.
inline void Add(OpRegistry& r, const OpDefBuilder& builder, ShapeFn shape_fn) {
  Status s = r.Register(builder, std::move(shape_fn));
  if (!s.ok()) {
    std::fprintf(stderr, "graft: invalid built-in op: %s\n", s.message().c_str());
    std::abort();
  }
}

// Registers one built-in gradient function, or marks an op type not differentiable (fn
// empty). A name taken twice is a bug in Graft, caught by every test run: it stops the process
// with the reason.
inline void AddGradient(GradientRegistry& r, const char* name, GradientFn fn) {
  Status s = fn ? r.Register(name, std::move(fn)) : r.RegisterNotDifferentiable(name);
  if (!s.ok()) {
    std::fprintf(stderr, "graft: invalid built-in gradient: %s\n", s.message().c_str());
    std::abort();
  }
}

}  // namespace graft::ops
