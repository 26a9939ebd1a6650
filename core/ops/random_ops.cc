// Built-in ops: see builtin_ops.h for the family.
//
// Random ops: the output shape comes from the `shape` input (a constant when known).
// Stateful ones (RandomUniform, ...) follow TensorFlow 2.18's registry; the stateless ones
// (StatelessRandomUniform, ..., their V2 forms and the key/counter ops) TensorFlow 2.21's.
#include <string>

#include "core/ops/builtin_ops.h"
#include "core/ops/common_shape_fns.h"

namespace graft::ops {
namespace {

// shape is a vector read as a shape; any further inputs (RandomUniformInt's minval and
// maxval) are scalars.
Status RandomShape(InferenceContext& c) {
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 1));
  for (int i = 1; i < c.num_inputs(); ++i) GRAFT_RETURN_IF_ERROR(c.WithScalar(i));
  PartialShape out;
  GRAFT_RETURN_IF_ERROR(c.InputAsShape(0, &out));
  c.set_output(0, std::move(out));
  return Status::Ok();
}

// Stateless V1 ops: shape, a seed of shape [2], then scalars (minval, maxval).
Status StatelessShape(InferenceContext& c) {
  PartialShape seed;
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 1, &seed));
  if (seed.dim(0) != kUnknownDim && seed.dim(0) != 2) {
    return errors::InvalidArgument("seed must have shape [2], not [", seed.dim(0), "]");
  }
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 1));
  for (int i = 2; i < c.num_inputs(); ++i) GRAFT_RETURN_IF_ERROR(c.WithScalar(i));
  PartialShape out;
  GRAFT_RETURN_IF_ERROR(c.InputAsShape(0, &out));
  c.set_output(0, std::move(out));
  return Status::Ok();
}

// Stateless V2 ops: shape, key (a vector), counter (a vector), alg (a scalar), then scalars.
Status StatelessV2Shape(InferenceContext& c) {
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 1));
  GRAFT_RETURN_IF_ERROR(c.WithRank(1, 1));
  GRAFT_RETURN_IF_ERROR(c.WithRank(2, 1));
  for (int i = 3; i < c.num_inputs(); ++i) GRAFT_RETURN_IF_ERROR(c.WithScalar(i));
  PartialShape out;
  GRAFT_RETURN_IF_ERROR(c.InputAsShape(0, &out));
  c.set_output(0, std::move(out));
  return Status::Ok();
}

// StatelessRandomGetKeyCounter(Alg): key [1], counter [2], alg [].
Status KeyCounterShape(InferenceContext& c) {
  PartialShape seed;
  GRAFT_RETURN_IF_ERROR(c.WithRank(0, 1, &seed));
  if (seed.dim(0) != kUnknownDim && seed.dim(0) != 2) {
    return errors::InvalidArgument("seed must have shape [2], not [", seed.dim(0), "]");
  }
  c.set_output(0, PartialShape(std::vector<int64_t>{1}));
  c.set_output(1, PartialShape(std::vector<int64_t>{2}));
  if (c.num_outputs() > 2) c.set_output(2, PartialShape::Scalar());
  return Status::Ok();
}

constexpr const char* kStatelessFloatOps[] = {"StatelessRandomUniform", "StatelessRandomNormal",
                                              "StatelessTruncatedNormal"};
constexpr const char* kStatelessFloatV2Ops[] = {"StatelessRandomUniformV2", "StatelessRandomNormalV2",
                                                "StatelessTruncatedNormalV2"};

// RandomUniform, RandomStandardNormal, TruncatedNormal: float output of dtype `dtype`.
constexpr const char* kFloatRandomOps[] = {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"};

}  // namespace

void RegisterRandomOps(OpRegistry& r) {
  for (const char* name : kFloatRandomOps) {
    Add(r,
        OpDefBuilder(name)
            .Input("shape: T")
            .Output("output: dtype")
            .Attr("seed: int = 0")
            .Attr("seed2: int = 0")
            .Attr("dtype: {half, bfloat16, float, double}")
            .Attr("T: {int32, int64}")
            .SetIsStateful(),
        RandomShape);
  }
  Add(r,
      OpDefBuilder("RandomUniformInt")
          .Input("shape: T")
          .Input("minval: Tout")
          .Input("maxval: Tout")
          .Output("output: Tout")
          .Attr("seed: int = 0")
          .Attr("seed2: int = 0")
          .Attr("Tout: {int32, int64}")
          .Attr("T: {int32, int64}")
          .SetIsStateful(),
      RandomShape);

  // --- Stateless ---
  for (const char* name : kStatelessFloatOps) {
    Add(r,
        OpDefBuilder(name)
            .Input("shape: T")
            .Input("seed: Tseed")
            .Output("output: dtype")
            .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT")
            .Attr("T: {int32, int64} = DT_INT32")
            .Attr("Tseed: {int32, int64} = DT_INT64"),
        StatelessShape);
  }
  Add(r,
      OpDefBuilder("StatelessRandomUniformInt")
          .Input("shape: T")
          .Input("seed: Tseed")
          .Input("minval: dtype")
          .Input("maxval: dtype")
          .Output("output: dtype")
          .Attr("dtype: {int32, int64}")
          .Attr("T: {int32, int64}")
          .Attr("Tseed: {int32, int64} = DT_INT64"),
      StatelessShape);
  Add(r,
      OpDefBuilder("StatelessRandomUniformFullInt")
          .Input("shape: T")
          .Input("seed: Tseed")
          .Output("output: dtype")
          .Attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64")
          .Attr("T: {int32, int64} = DT_INT32")
          .Attr("Tseed: {int32, int64, uint32, uint64} = DT_INT64"),
      StatelessShape);
  for (const char* name : kStatelessFloatV2Ops) {
    Add(r,
        OpDefBuilder(name)
            .Input("shape: Tshape")
            .Input("key: uint64")
            .Input("counter: uint64")
            .Input("alg: int32")
            .Output("output: dtype")
            .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT")
            .Attr("Tshape: {int32, int64} = DT_INT32"),
        StatelessV2Shape);
  }
  Add(r,
      OpDefBuilder("StatelessRandomUniformIntV2")
          .Input("shape: Tshape")
          .Input("key: uint64")
          .Input("counter: uint64")
          .Input("alg: int32")
          .Input("minval: dtype")
          .Input("maxval: dtype")
          .Output("output: dtype")
          .Attr("dtype: {int32, int64, uint32, uint64}")
          .Attr("Tshape: {int32, int64} = DT_INT32"),
      StatelessV2Shape);
  Add(r,
      OpDefBuilder("StatelessRandomUniformFullIntV2")
          .Input("shape: Tshape")
          .Input("key: uint64")
          .Input("counter: uint64")
          .Input("alg: int32")
          .Output("output: dtype")
          .Attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64")
          .Attr("Tshape: {int32, int64} = DT_INT32"),
      StatelessV2Shape);
  Add(r,
      OpDefBuilder("StatelessRandomGetKeyCounterAlg")
          .Input("seed: Tseed")
          .Output("key: uint64")
          .Output("counter: uint64")
          .Output("alg: int32")
          .Attr("Tseed: {int32, int64} = DT_INT64"),
      KeyCounterShape);
  Add(r,
      OpDefBuilder("StatelessRandomGetKeyCounter")
          .Input("seed: Tseed")
          .Output("key: uint64")
          .Output("counter: uint64")
          .Attr("Tseed: {int32, int64} = DT_INT64"),
      KeyCounterShape);
  // Stateful in TensorFlow's registry (the answer depends on the device).
  Add(r, OpDefBuilder("StatelessRandomGetAlg").Output("alg: int32").SetIsStateful(), [](InferenceContext& c) {
    c.set_output(0, PartialShape::Scalar());
    return Status::Ok();
  });
}

}  // namespace graft::ops
