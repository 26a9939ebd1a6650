// Built-in ops: see builtin_ops.h for the family.
//
// Constants, placeholders and identities: Const, Placeholder, PlaceholderWithDefault,
// Identity, IdentityN, NoOp, StopGradient, PreventGradient, Snapshot and EnsureShape, and the function
// frame's _Arg and _Retval (kernels/cpu/structure_kernels.cc).
// Signatures follow TensorFlow 2.18's registry (names, attr order, defaults, allowed types).
// Shape functions work on partial shapes and read constant inputs when their values are
// known; errors for values that the kernel would reject in any case (a bad axis, a negative
// size) are reported here, while building.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/ops/builtin_ops.h"
#include "core/ops/common_shape_fns.h"

namespace graft::ops {

// The array families' shared helpers (NeedsAttrs, CanonicalAxis, VectorLength, ...).
using namespace shape_fns;

namespace {

Status ConstShape(InferenceContext& c) {
  const Tensor* value = nullptr;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("value", &value));
  DType dtype;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("dtype", &dtype));
  if (value->dtype() != dtype) {
    return errors::InvalidArgument("attr 'value' has dtype ", DTypeName(value->dtype()), ", but attr 'dtype' is ",
                                   DTypeName(dtype));
  }
  c.set_output(0, value->shape());
  return Status::Ok();
}

Status PlaceholderShape(InferenceContext& c) {
  PartialShape shape;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("shape", &shape));
  c.set_output(0, shape);
  return Status::Ok();
}

Status PlaceholderWithDefaultShape(InferenceContext& c) {
  PartialShape shape;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("shape", &shape));
  if (!c.input(0).IsCompatibleWith(shape)) {
    return errors::ShapeError("the default input has shape ", c.input(0).ToString(),
                              ", which is not compatible with attr 'shape' ", shape.ToString());
  }
  c.set_output(0, shape);
  return Status::Ok();
}

// EnsureShape: the input, whose shape must be compatible with attr `shape`; the output has the
// merge of the two.
Status EnsureShapeShape(InferenceContext& c) {
  PartialShape shape, merged;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("shape", &shape));
  if (!c.input(0).MergeWith(shape, &merged).ok()) {
    return errors::ShapeError("the input has shape ", c.input(0).ToString(), ", which is not compatible with attr 'shape' ",
                              shape.ToString());
  }
  c.set_output(0, merged);
  return Status::Ok();
}

// _Arg: a function argument, so nothing says its shape but the "_output_shapes" TensorFlow
// writes beside it (its importer refines every node with that attr; an _Arg is the node whose
// shape is otherwise unknown).
Status ArgShape(InferenceContext& c) {
  std::vector<PartialShape> shapes;
  if (c.attr("_output_shapes") != nullptr && c.GetAttr("_output_shapes", &shapes).ok() && shapes.size() == 1) {
    c.set_output(0, shapes[0]);
  } else {
    c.set_output(0, PartialShape::Unknown());
  }
  return Status::Ok();
}

Status IdentityNShape(InferenceContext& c) {
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, c.input(i));
  return Status::Ok();
}

}  // namespace

void RegisterStructureOps(OpRegistry& r) {
  using B = OpDefBuilder;

  Add(r, B("Const").Output("output: dtype").Attr("value: tensor").Attr("dtype: type"),
      NeedsAttrs({"value", "dtype"}, ConstShape));
  Add(r, B("Placeholder").Output("output: dtype").Attr("dtype: type").Attr("shape: shape = { unknown_rank: true }"),
      NeedsAttrs({"shape"}, PlaceholderShape));
  Add(r, B("PlaceholderWithDefault").Input("input: dtype").Output("output: dtype").Attr("dtype: type")
             .Attr("shape: shape"),
      NeedsAttrs({"shape"}, PlaceholderWithDefaultShape));
  Add(r, B("EnsureShape").Input("input: T").Output("output: T").Attr("shape: shape").Attr("T: type"),
      NeedsAttrs({"shape"}, EnsureShapeShape));
  Add(r, B("Identity").Input("input: T").Output("output: T").Attr("T: type"), shape_fns::Unchanged);
  Add(r, B("IdentityN").Input("input: T").Output("output: T").Attr("T: list(type) >= 1"), IdentityNShape);
  Add(r, B("NoOp"), shape_fns::NoOutputs);
  Add(r, B("StopGradient").Input("input: T").Output("output: T").Attr("T: type"), shape_fns::Unchanged);
  Add(r, B("PreventGradient").Input("input: T").Output("output: T").Attr("T: type").Attr("message: string = ''"),
      shape_fns::Unchanged);
  Add(r, B("Snapshot").Input("input: T").Output("output: T").Attr("T: type"), shape_fns::Unchanged);
  // A function's frame in a graph: argument `index` and result `index`. In a top-level graph
  // (TensorFlow writes them there when it dumps an instantiated function) an _Arg is fed like a
  // Placeholder and a _Retval's input is fetched; both are stateful, so that two _Args are
  // never merged.
  Add(r, B("_Arg").Output("output: T").Attr("T: type").Attr("index: int >= 0").SetIsStateful(), ArgShape);
  Add(r, B("_Retval").Input("input: T").Attr("T: type").Attr("index: int >= 0").SetIsStateful(),
      shape_fns::NoOutputs);
}

}  // namespace graft::ops
