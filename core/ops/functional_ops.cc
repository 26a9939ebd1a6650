// Built-in ops: see builtin_ops.h for the family.
//
// Function calls, functional If/While, TensorList ops and host (Python) functions.
//
// Shapes through function bodies are not inferred here: a call's outputs come from its
// `output_shapes` attr when it has a non-empty one, otherwise they are unknown (While: its
// inputs' shapes). TensorList handles are scalar variants; TensorFlow attaches the list's
// element dtype and shape to the handle ("handle data"), which Graft's shape inference does not
// carry, so element shapes come only from each op's own element_shape/tensor inputs.
#include "core/ops/builtin_ops.h"
#include "core/ops/common_shape_fns.h"

namespace graft::ops {
namespace {

// Sets every output from the `output_shapes` attr; *used is false when the attr is empty.
Status OutputsFromAttr(InferenceContext& c, bool* used) {
  std::vector<PartialShape> shapes;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("output_shapes", &shapes));
  *used = !shapes.empty();
  if (shapes.empty()) return Status::Ok();
  if (static_cast<int>(shapes.size()) != c.num_outputs()) {
    return errors::InvalidArgument("output_shapes has ", shapes.size(), " shapes, but the op has ", c.num_outputs(),
                                   " outputs");
  }
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, shapes[static_cast<size_t>(i)]);
  return Status::Ok();
}

// dx[k] has the shape of input dx_inputs[k].
Status HostFunctionGradShape(InferenceContext& c) {
  const AttrValue* dx_inputs = c.attr("dx_inputs");
  const std::vector<int64_t>* idx = dx_inputs != nullptr ? dx_inputs->get<std::vector<int64_t>>() : nullptr;
  int start = 0, end = 0;
  GRAFT_RETURN_IF_ERROR(c.InputRange("input", &start, &end));
  if (idx == nullptr || static_cast<int>(idx->size()) != c.num_outputs()) {
    return errors::InvalidArgument("attr 'dx_inputs' must name one input per output");
  }
  for (int k = 0; k < c.num_outputs(); ++k) {
    const int64_t i = (*idx)[static_cast<size_t>(k)];
    if (i < 0 || i >= end - start) return errors::InvalidArgument("dx_inputs[", k, "] = ", i, " is not an input");
    c.set_output(k, c.input(start + static_cast<int>(i)));
  }
  return Status::Ok();
}

Status IfShape(InferenceContext& c) {
  bool used = false;
  GRAFT_RETURN_IF_ERROR(OutputsFromAttr(c, &used));
  if (!used) return shape_fns::Unknown(c);
  return Status::Ok();
}

// While: the loop variables keep their shapes unless output_shapes says otherwise.
Status WhileShape(InferenceContext& c) {
  bool used = false;
  GRAFT_RETURN_IF_ERROR(OutputsFromAttr(c, &used));
  if (!used) {
    for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, c.input(i));
  }
  return Status::Ok();
}

// Reads input i (an int vector, or the scalar -1 for an unknown rank) as an element shape.
Status ElementShapeInput(const InferenceContext& c, int i, PartialShape* out) {
  return c.InputAsShape(i, out).WithContext(c.op_def().inputs[static_cast<size_t>(i)].name);
}

// The list-creating ops: the handle is a scalar; element_shape (input i) must be a valid shape.
Status NewListShape(InferenceContext& c, int element_shape_input) {
  PartialShape unused;
  GRAFT_RETURN_IF_ERROR(ElementShapeInput(c, element_shape_input, &unused));
  c.set_output(0, PartialShape::Scalar());
  return Status::Ok();
}

Status TensorListGetItemShape(InferenceContext& c) {
  PartialShape element;
  GRAFT_RETURN_IF_ERROR(ElementShapeInput(c, 2, &element));
  c.set_output(0, std::move(element));
  return Status::Ok();
}

// [num_elements or ?] + element shape.
Status TensorListStackShape(InferenceContext& c) {
  PartialShape element;
  GRAFT_RETURN_IF_ERROR(ElementShapeInput(c, 1, &element));
  int64_t num_elements = -1;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("num_elements", &num_elements));
  if (num_elements < -1) {
    return errors::InvalidArgument("num_elements is ", num_elements, ", but must be >= 0, or -1 for unknown");
  }
  c.set_output(0, PartialShape({num_elements}).Concatenate(element));
  return Status::Ok();
}

// TensorListFromTensor(tensor, element_shape): the list's elements are tensor's rows.
Status TensorListFromTensorShape(InferenceContext& c) {
  // Its rows are the list's elements.
  GRAFT_RETURN_IF_ERROR(c.WithRankAtLeast(0, 1));
  const PartialShape& t = c.input(0);
  PartialShape element;
  GRAFT_RETURN_IF_ERROR(ElementShapeInput(c, 1, &element));
  if (t.known_rank()) {
    PartialShape rows(std::vector<int64_t>(t.dims().begin() + 1, t.dims().end()));
    PartialShape unused;
    if (!rows.MergeWith(element, &unused).ok()) {
      return errors::ShapeError("the rows of tensor, of shape ", rows.ToString(), ", do not match element_shape ",
                                element.ToString());
    }
  }
  c.set_output(0, PartialShape::Scalar());
  return Status::Ok();
}

Status TensorListPopBackShape(InferenceContext& c) {
  PartialShape element;
  GRAFT_RETURN_IF_ERROR(ElementShapeInput(c, 1, &element));
  c.set_output(0, PartialShape::Scalar());
  c.set_output(1, std::move(element));
  return Status::Ok();
}

// The handle does not say the element rank here, so the vector's length is unknown.
Status TensorListElementShapeShape(InferenceContext& c) {
  c.set_output(0, PartialShape::Unknown());
  return Status::Ok();
}

void AddCall(OpRegistry& r, const char* name, bool stateful) {
  OpDefBuilder b(name);
  b.Input("args: Tin")
      .Output("output: Tout")
      .Attr("Tin: list(type) >= 0")
      .Attr("Tout: list(type) >= 0")
      .Attr("f: func")
      .Attr("config: string = ''")
      .Attr("config_proto: string = ''")
      .Attr("executor_type: string = ''");
  if (stateful) b.SetIsStateful();
  Add(r, b, shape_fns::Unknown);
}

void AddIf(OpRegistry& r, const char* name, bool stateful) {
  OpDefBuilder b(name);
  b.Input("cond: Tcond")
      .Input("input: Tin")
      .Output("output: Tout")
      .Attr("Tcond: type")
      .Attr("Tin: list(type) >= 0")
      .Attr("Tout: list(type) >= 0")
      .Attr("then_branch: func")
      .Attr("else_branch: func")
      .Attr("output_shapes: list(shape) = []");
  if (stateful) b.SetIsStateful();
  Add(r, b, IfShape);
}

void AddWhile(OpRegistry& r, const char* name, bool stateful) {
  OpDefBuilder b(name);
  b.Input("input: T")
      .Output("output: T")
      .Attr("T: list(type) >= 0")
      .Attr("cond: func")
      .Attr("body: func")
      .Attr("output_shapes: list(shape) = []")
      .Attr("parallel_iterations: int = 10");
  if (stateful) b.SetIsStateful();
  Add(r, b, WhileShape);
}

}  // namespace

void RegisterFunctionalOps(OpRegistry& r) {
  // --- Function calls ---
  AddCall(r, "PartitionedCall", false);
  AddCall(r, "StatefulPartitionedCall", true);
  AddIf(r, "If", true);
  AddIf(r, "StatelessIf", false);
  AddWhile(r, "While", true);
  AddWhile(r, "StatelessWhile", false);

  // --- Tensor lists ---
  Add(r,
      OpDefBuilder("TensorListReserve")
          .Input("element_shape: shape_type")
          .Input("num_elements: int32")
          .Output("handle: variant")
          .Attr("element_dtype: type")
          .Attr("shape_type: {int32, int64}"),
      [](InferenceContext& c) { return NewListShape(c, 0); });
  Add(r,
      OpDefBuilder("TensorListSetItem")
          .Input("input_handle: variant")
          .Input("index: int32")
          .Input("item: element_dtype")
          .Output("output_handle: variant")
          .Attr("element_dtype: type")
          .Attr("resize_if_index_out_of_bounds: bool = false"),
      shape_fns::Scalar);
  Add(r,
      OpDefBuilder("TensorListGetItem")
          .Input("input_handle: variant")
          .Input("index: int32")
          .Input("element_shape: int32")
          .Output("item: element_dtype")
          .Attr("element_dtype: type"),
      TensorListGetItemShape);
  Add(r,
      OpDefBuilder("TensorListStack")
          .Input("input_handle: variant")
          .Input("element_shape: int32")
          .Output("tensor: element_dtype")
          .Attr("element_dtype: type")
          .Attr("num_elements: int = -1"),
      TensorListStackShape);
  Add(r, OpDefBuilder("TensorListLength").Input("input_handle: variant").Output("length: int32"), shape_fns::Scalar);
  Add(r,
      OpDefBuilder("TensorListFromTensor")
          .Input("tensor: element_dtype")
          .Input("element_shape: shape_type")
          .Output("output_handle: variant")
          .Attr("element_dtype: type")
          .Attr("shape_type: {int32, int64}"),
      TensorListFromTensorShape);
  Add(r,
      OpDefBuilder("TensorListPushBack")
          .Input("input_handle: variant")
          .Input("tensor: element_dtype")
          .Output("output_handle: variant")
          .Attr("element_dtype: type"),
      shape_fns::Scalar);
  Add(r,
      OpDefBuilder("TensorListPopBack")
          .Input("input_handle: variant")
          .Input("element_shape: int32")
          .Output("output_handle: variant")
          .Output("tensor: element_dtype")
          .Attr("element_dtype: type"),
      TensorListPopBackShape);
  Add(r,
      OpDefBuilder("TensorListElementShape")
          .Input("input_handle: variant")
          .Output("element_shape: shape_type")
          .Attr("shape_type: {int32, int64}"),
      TensorListElementShapeShape);

  // --- Host functions ---
  Add(r,
      OpDefBuilder("EagerPyFunc")
          .Input("input: Tin")
          .Output("output: Tout")
          .Attr("token: string")
          .Attr("is_async: bool = false")
          .Attr("Tin: list(type) >= 0")
          .Attr("Tout: list(type) >= 0")
          .SetIsStateful(),
      shape_fns::Unknown);
  // The gradient of EagerPyFunc: runs the host function again under a gradient tape and
  // differentiates its eager ops (core/eager/host_function_grad.cc). dy[j] is the gradient of
  // output dy_outputs[j]; dx[k] that of input dx_inputs[k] (zeros where none flows).
  Add(r,
      OpDefBuilder("GraftHostFunctionGrad")
          .Input("input: Tin")
          .Input("dy: Tdy")
          .Output("dx: Tdx")
          .Attr("token: string")
          .Attr("Tin: list(type) >= 0")
          .Attr("Tdy: list(type) >= 0")
          .Attr("Tdx: list(type) >= 0")
          .Attr("dy_outputs: list(int) = []")
          .Attr("dx_inputs: list(int) = []")
          .SetIsStateful(),
      HostFunctionGradShape);
  Add(r,
      OpDefBuilder("PyFunc")
          .Input("input: Tin")
          .Output("output: Tout")
          .Attr("token: string")
          .Attr("Tin: list(type) >= 0")
          .Attr("Tout: list(type) >= 0")
          .SetIsStateful(),
      shape_fns::Unknown);
}

}  // namespace graft::ops
