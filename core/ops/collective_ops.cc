// Built-in ops: see builtin_ops.h for the family.
//
// TensorFlow's V2 collective ops, with its inputs and attrs, so that graphs that use them
// (MultiWorkerMirroredStrategy's, Graft's graft.distribute) import and run: an all-reduce, a
// gather along dimension 0 and a broadcast. The group and instance are inputs; the kernels
// (kernels/cpu/collective_kernels.cc) run them over the process's CollectiveTransport (MPI).
#include "core/ops/builtin_ops.h"
#include "core/ops/common_shape_fns.h"

namespace graft::ops {
namespace {

using B = OpDefBuilder;

// group_size, group_key and instance_key are scalars.
Status KeyShapes(InferenceContext& c, int first) {
  for (int i = first; i < first + 3; ++i) GRAFT_RETURN_IF_ERROR(c.WithRank(i, 0));
  return Status::Ok();
}

Status ReduceShape(InferenceContext& c) {
  GRAFT_RETURN_IF_ERROR(KeyShapes(c, 1));
  return shape_fns::Unchanged(c);
}

// The ranks' first dimensions add up to one nobody knows while building.
Status GatherShape(InferenceContext& c) {
  GRAFT_RETURN_IF_ERROR(KeyShapes(c, 1));
  const PartialShape& in = c.input(0);
  if (in.known_rank() && in.rank() == 0) {
    return errors::ShapeError("input must have at least one dimension to gather along");
  }
  c.set_output(0, in.known_rank() ? shape_fns::Replaced(in, 0, kUnknownDim) : PartialShape());
  return Status::Ok();
}

Status BcastRecvShape(InferenceContext& c) {
  GRAFT_RETURN_IF_ERROR(KeyShapes(c, 0));
  GRAFT_RETURN_IF_ERROR(c.WithRank(3, 1));
  PartialShape out;
  GRAFT_RETURN_IF_ERROR(c.InputAsShape(3, &out));
  c.set_output(0, std::move(out));
  return Status::Ok();
}

B Keys(B b) {
  return b.Input("group_size: int32").Input("group_key: int32").Input("instance_key: int32");
}

// _GraftRecv's shape: the producer's, carried by its shape attr.
Status RecvShape(InferenceContext& c) {
  PartialShape shape;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("shape", &shape));
  c.set_output(0, std::move(shape));
  return Status::Ok();
}

}  // namespace

void RegisterCollectiveOps(OpRegistry& r) {
  // The two ends of an edge between the partitions of a cluster session's graph
  // (runtime/cluster_session.cc adds them to each process's own graph; they never appear in
  // the caller's graph). tag: the edge's message tag (EdgeTag); peer: the other process's rank.
  Add(r,
      B("_GraftSend")
          .Input("input: T")
          .Attr("T: type")
          .Attr("tag: int")
          .Attr("peer: int")
          .Attr("tensor_name: string")
          .SetIsStateful(),
      shape_fns::NoOutputs);
  Add(r,
      B("_GraftRecv")
          .Output("output: T")
          .Attr("T: type")
          .Attr("shape: shape")
          .Attr("tag: int")
          .Attr("peer: int")
          .Attr("tensor_name: string")
          .SetIsStateful(),
      RecvShape);
  Add(r,
      Keys(B("CollectiveReduceV2").Input("input: T").Output("data: T"))
          .Input("ordering_token: Nordering_token * resource")
          .Attr("T: {bfloat16, float, float16, float64, int32, int64}")
          .Attr("merge_op: {'Min', 'Max', 'Mul', 'Add'}")
          .Attr("final_op: {'Id', 'Div'}")
          .Attr("communication_hint: string = 'auto'")
          .Attr("timeout_seconds: float = 0")
          .Attr("is_stateless: bool = false")
          .Attr("Nordering_token: int >= 0 = 0")
          .Attr("max_subdivs_per_device: int = -1")
          .SetIsStateful(),
      ReduceShape);
  Add(r,
      Keys(B("CollectiveGatherV2").Input("input: T").Output("data: T"))
          .Input("ordering_token: Nordering_token * resource")
          .Attr("T: {float, float16, float64, int32, int64}")
          .Attr("communication_hint: string = 'auto'")
          .Attr("timeout_seconds: float = 0")
          .Attr("is_stateless: bool = false")
          .Attr("Nordering_token: int >= 0 = 0")
          .SetIsStateful(),
      GatherShape);
  Add(r,
      Keys(B("CollectiveBcastSendV2").Input("input: T").Output("data: T"))
          .Attr("T: {bool, float, float16, float64, int32, int64}")
          .Attr("communication_hint: string = 'auto'")
          .Attr("timeout_seconds: float = 0")
          .SetIsStateful(),
      ReduceShape);
  Add(r,
      Keys(B("CollectiveBcastRecvV2").Output("data: T"))
          .Input("shape: Tshape")
          .Attr("T: {bool, float, float16, float64, int32, int64}")
          .Attr("Tshape: {int32, int64} = DT_INT32")
          .Attr("communication_hint: string = 'auto'")
          .Attr("timeout_seconds: float = 0")
          .SetIsStateful(),
      BcastRecvShape);
}

}  // namespace graft::ops
