// Built-in ops: see builtin_ops.h for the family.
//
// Variables come in two kinds. Resource variables (VarHandleOp + ReadVariableOp/Assign*Op) pass
// a scalar `resource` handle; TensorFlow's shape inference attaches "handle data" (the dtype and
// shape from VarHandleOp's attrs) to that handle and checks reads and writes against it. Graft's
// InferenceContext carries shapes only, so reads have an unknown shape and writes are checked
// only where their own inputs say something. Reference variables (VariableV2 + Assign*) output
// Ref(dtype) with the `shape` attr's shape.
#include <initializer_list>
#include <string_view>
#include <vector>

#include "core/ops/builtin_ops.h"
#include "core/ops/common_shape_fns.h"

namespace graft::ops {
namespace {

// The argument name of input i (ops in this file have no list inputs).
const std::string& InputName(const InferenceContext& c, int i) {
  return c.op_def().inputs[static_cast<size_t>(i)].name;
}

// Merges input i into *acc, which holds the merged shape of the inputs named in acc_names.
Status MergeInput(const InferenceContext& c, int i, const std::string& acc_names, PartialShape* acc) {
  PartialShape merged;
  if (!acc->MergeWith(c.input(i), &merged).ok()) {
    return errors::ShapeError(InputName(c, i), " has shape ", c.input(i).ToString(), ", which is not compatible with ",
                              acc_names, " shape ", acc->ToString());
  }
  *acc = std::move(merged);
  return Status::Ok();
}

// Output 0 = the merge of inputs 0 (the variable) and 1 (the value).
Status MergeRefAndValue(InferenceContext& c) {
  PartialShape s = c.input(0);
  GRAFT_RETURN_IF_ERROR(MergeInput(c, 1, InputName(c, 0), &s));
  c.set_output(0, std::move(s));
  return Status::Ok();
}

Status VariableShape(InferenceContext& c, bool scalar_is_unknown) {
  PartialShape shape;
  GRAFT_RETURN_IF_ERROR(c.GetAttr("shape", &shape));
  // The original Variable op wrote unknown shapes as an empty (rank-0) shape attr.
  if (scalar_is_unknown && shape.known_rank() && shape.rank() == 0) shape = PartialShape::Unknown();
  c.set_output(0, std::move(shape));
  return Status::Ok();
}

// ApplyGradientDescent(var, alpha, delta) and its resource form: alpha scalar; delta merges
// with var (a ref input; a resource handle's shape is not known here).
Status GradientDescentShape(InferenceContext& c, bool is_resource) {
  GRAFT_RETURN_IF_ERROR(c.WithScalar(1));
  if (is_resource) return Status::Ok();
  PartialShape s = c.input(0);
  GRAFT_RETURN_IF_ERROR(MergeInput(c, 2, "var", &s));
  c.set_output(0, std::move(s));
  return Status::Ok();
}

// ApplyAdam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad).
Status AdamShape(InferenceContext& c, bool is_resource) {
  for (int i = 3; i <= 8; ++i) GRAFT_RETURN_IF_ERROR(c.WithScalar(i));
  if (is_resource) return Status::Ok();
  PartialShape s = c.input(0);
  GRAFT_RETURN_IF_ERROR(MergeInput(c, 1, "var", &s));
  GRAFT_RETURN_IF_ERROR(MergeInput(c, 2, "var and m", &s));
  GRAFT_RETURN_IF_ERROR(MergeInput(c, 9, "var, m and v", &s));
  c.set_output(0, std::move(s));
  return Status::Ok();
}

// The slot-variable updates (ApplyMomentum, ApplyAdagrad, ...): the inputs at scalars are
// scalars; for the reference forms the output merges var, the slots and grad.
Status SlotUpdateShape(InferenceContext& c, bool is_resource, std::initializer_list<int> scalars, int nslots,
                       int grad) {
  for (int i : scalars) GRAFT_RETURN_IF_ERROR(c.WithScalar(i));
  if (is_resource) return Status::Ok();
  PartialShape s = c.input(0);
  for (int i = 1; i <= nslots; ++i) GRAFT_RETURN_IF_ERROR(MergeInput(c, i, "var and its slots", &s));
  GRAFT_RETURN_IF_ERROR(MergeInput(c, grad, "var and grad", &s));
  c.set_output(0, std::move(s));
  return Status::Ok();
}

constexpr const char* kNumberType = "T: numbertype";

}  // namespace

void RegisterStateOps(OpRegistry& r) {
  // --- Stacks (TensorFlow 1's loop gradients keep each iteration's values in them) ---
  Add(r,
      OpDefBuilder("StackV2")
          .Input("max_size: int32")
          .Output("handle: resource")
          .Attr("elem_type: type")
          .Attr("stack_name: string = ''")
          .SetIsStateful(),
      [](InferenceContext& c) {
        GRAFT_RETURN_IF_ERROR(c.WithScalar(0));
        c.set_output(0, PartialShape::Scalar());
        return Status::Ok();
      });
  Add(r,
      OpDefBuilder("StackPushV2")
          .Input("handle: resource")
          .Input("elem: T")
          .Output("output: T")
          .Attr("T: type")
          .Attr("swap_memory: bool = false")
          .SetIsStateful(),
      [](InferenceContext& c) {
        c.set_output(0, c.input(1));
        return Status::Ok();
      });
  Add(r, OpDefBuilder("StackPopV2").Input("handle: resource").Output("elem: elem_type").Attr("elem_type: type").SetIsStateful(),
      shape_fns::Unknown);
  Add(r, OpDefBuilder("StackCloseV2").Input("handle: resource").SetIsStateful(), shape_fns::NoOutputs);

  // --- Resource variables ---
  Add(r,
      OpDefBuilder("VarHandleOp")
          .Output("resource: resource")
          .Attr("container: string = ''")
          .Attr("shared_name: string = ''")
          .Attr("debug_name: string = ''")
          .Attr("dtype: type")
          .Attr("shape: shape")
          .Attr("allowed_devices: list(string) = []")
          .SetIsStateful(),
      shape_fns::Scalar);

  // The handle does not carry the variable's shape in Graft's shape inference.
  Add(r,
      OpDefBuilder("ReadVariableOp").Input("resource: resource").Output("value: dtype").Attr("dtype: type").SetIsStateful(),
      shape_fns::Unknown);

  Add(r,
      OpDefBuilder("AssignVariableOp")
          .Input("resource: resource")
          .Input("value: dtype")
          .Attr("dtype: type")
          .Attr("validate_shape: bool = false")
          .SetIsStateful(),
      shape_fns::NoOutputs);
  // Graft's own: assigns only while the variable is uninitialized. A variable created on a
  // traced function's first trace with a value computed there is initialized by it on the
  // function's first call, and kept by later calls.
  Add(r,
      OpDefBuilder("GraftInitializeVariable")
          .Input("resource: resource")
          .Input("value: dtype")
          .Attr("dtype: type")
          .SetIsStateful(),
      shape_fns::NoOutputs);
  for (const char* name : {"AssignAddVariableOp", "AssignSubVariableOp"}) {
    Add(r,
        OpDefBuilder(name).Input("resource: resource").Input("value: dtype").Attr("dtype: type").SetIsStateful(),
        shape_fns::NoOutputs);
  }

  // Row access. Without handle data, ResourceGather's output shape is known only to be
  // indices' shape followed by something; scatters check updates against the variable when run.
  Add(r,
      OpDefBuilder("ResourceGather")
          .Input("resource: resource")
          .Input("indices: Tindices")
          .Attr("batch_dims: int = 0")
          .Attr("validate_indices: bool = true")
          .Output("output: dtype")
          .Attr("dtype: type")
          .Attr("Tindices: {int32, int64}")
          .SetIsStateful(),
      shape_fns::Unknown);
  for (const char* name : {"ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterMul", "ResourceScatterDiv",
                           "ResourceScatterMin", "ResourceScatterMax", "ResourceScatterUpdate"}) {
    const std::string_view n(name);
    const char* types = n.ends_with("Update") ? "dtype: type"
                        : (n.ends_with("Min") || n.ends_with("Max")) ? "dtype: realnumbertype"
                                                                     : "dtype: numbertype";
    Add(r,
        OpDefBuilder(name)
            .Input("resource: resource")
            .Input("indices: Tindices")
            .Input("updates: dtype")
            .Attr(types)
            .Attr("Tindices: {int32, int64}")
            .SetIsStateful(),
        [](InferenceContext& c) -> Status {
          GRAFT_RETURN_IF_ERROR(c.WithScalar(0));
          return Status::Ok();
        });
  }
  Add(r,
      OpDefBuilder("VariableShape")
          .Input("input: resource")
          .Output("output: out_type")
          .Attr("out_type: {int32, int64} = DT_INT32")
          .SetIsStateful(),
      [](InferenceContext& c) -> Status {
        c.set_output(0, PartialShape({kUnknownDim}));
        return Status::Ok();
      });

  Add(r, OpDefBuilder("VarIsInitializedOp").Input("resource: resource").Output("is_initialized: bool").SetIsStateful(),
      shape_fns::Scalar);
  // Emitted before reading a variable to save it; Graft's reads never copy on read, so the
  // kernel does nothing.
  Add(r, OpDefBuilder("DisableCopyOnRead").Input("resource: resource"), shape_fns::NoOutputs);

  // --- Reference variables ---
  Add(r,
      OpDefBuilder("VariableV2")
          .Output("ref: Ref(dtype)")
          .Attr("shape: shape")
          .Attr("dtype: type")
          .Attr("container: string = ''")
          .Attr("shared_name: string = ''")
          .SetIsStateful(),
      [](InferenceContext& c) { return VariableShape(c, false); });
  Add(r,
      OpDefBuilder("Variable")
          .Output("ref: Ref(dtype)")
          .Attr("shape: shape")
          .Attr("dtype: type")
          .Attr("container: string = ''")
          .Attr("shared_name: string = ''")
          .SetIsStateful(),
      [](InferenceContext& c) { return VariableShape(c, true); });

  Add(r,
      OpDefBuilder("Assign")
          .Input("ref: Ref(T)")
          .Input("value: T")
          .Output("output_ref: Ref(T)")
          .Attr("T: type")
          .Attr("validate_shape: bool = true")
          .Attr("use_locking: bool = true")
          .SetAllowsUninitializedInput(),
      [](InferenceContext& c) -> Status {
        bool validate_shape = true;
        GRAFT_RETURN_IF_ERROR(c.GetAttr("validate_shape", &validate_shape));
        if (!validate_shape) {
          // The variable takes the value's shape, whatever it had.
          c.set_output(0, c.input(1));
          return Status::Ok();
        }
        return MergeRefAndValue(c);
      });
  for (const char* name : {"AssignAdd", "AssignSub"}) {
    Add(r,
        OpDefBuilder(name)
            .Input("ref: Ref(T)")
            .Input("value: T")
            .Output("output_ref: Ref(T)")
            .Attr(kNumberType)
            .Attr("use_locking: bool = false"),
        MergeRefAndValue);
  }

  Add(r,
      OpDefBuilder("IsVariableInitialized")
          .Input("ref: Ref(dtype)")
          .Output("is_initialized: bool")
          .Attr("dtype: type")
          .SetAllowsUninitializedInput(),
      shape_fns::Scalar);

  // --- Optimizer updates ---
  Add(r,
      OpDefBuilder("ApplyGradientDescent")
          .Input("var: Ref(T)")
          .Input("alpha: T")
          .Input("delta: T")
          .Output("out: Ref(T)")
          .Attr(kNumberType)
          .Attr("use_locking: bool = false"),
      [](InferenceContext& c) { return GradientDescentShape(c, false); });
  Add(r,
      OpDefBuilder("ResourceApplyGradientDescent")
          .Input("var: resource")
          .Input("alpha: T")
          .Input("delta: T")
          .Attr(kNumberType)
          .Attr("use_locking: bool = false")
          .SetIsStateful(),
      [](InferenceContext& c) { return GradientDescentShape(c, true); });

  Add(r,
      OpDefBuilder("ApplyAdam")
          .Input("var: Ref(T)")
          .Input("m: Ref(T)")
          .Input("v: Ref(T)")
          .Input("beta1_power: T")
          .Input("beta2_power: T")
          .Input("lr: T")
          .Input("beta1: T")
          .Input("beta2: T")
          .Input("epsilon: T")
          .Input("grad: T")
          .Output("out: Ref(T)")
          .Attr(kNumberType)
          .Attr("use_locking: bool = false")
          .Attr("use_nesterov: bool = false"),
      [](InferenceContext& c) { return AdamShape(c, false); });
  Add(r,
      OpDefBuilder("ResourceApplyAdam")
          .Input("var: resource")
          .Input("m: resource")
          .Input("v: resource")
          .Input("beta1_power: T")
          .Input("beta2_power: T")
          .Input("lr: T")
          .Input("beta1: T")
          .Input("beta2: T")
          .Input("epsilon: T")
          .Input("grad: T")
          .Attr(kNumberType)
          .Attr("use_locking: bool = false")
          .Attr("use_nesterov: bool = false")
          .SetIsStateful(),
      [](InferenceContext& c) { return AdamShape(c, true); });

  // Momentum: accum = accum * momentum + grad; var -= lr * accum (with use_nesterov:
  // var -= lr * grad + lr * momentum * accum). Keras's form: accum = accum * momentum - lr * grad;
  // var += accum (with use_nesterov: var += momentum * accum - lr * grad).
  Add(r,
      OpDefBuilder("ApplyMomentum")
          .Input("var: Ref(T)")
          .Input("accum: Ref(T)")
          .Input("lr: T")
          .Input("grad: T")
          .Input("momentum: T")
          .Output("out: Ref(T)")
          .Attr(kNumberType)
          .Attr("use_locking: bool = false")
          .Attr("use_nesterov: bool = false"),
      [](InferenceContext& c) { return SlotUpdateShape(c, false, {2, 4}, 1, 3); });
  for (const char* name : {"ResourceApplyMomentum", "ResourceApplyKerasMomentum"}) {
    Add(r,
        OpDefBuilder(name)
            .Input("var: resource")
            .Input("accum: resource")
            .Input("lr: T")
            .Input("grad: T")
            .Input("momentum: T")
            .Attr(kNumberType)
            .Attr("use_locking: bool = false")
            .Attr("use_nesterov: bool = false")
            .SetIsStateful(),
        [](InferenceContext& c) { return SlotUpdateShape(c, true, {2, 4}, 1, 3); });
  }

  // Adagrad: accum += grad^2; var -= lr * grad / sqrt(accum) (V2: / (sqrt(accum) + epsilon)).
  Add(r,
      OpDefBuilder("ApplyAdagrad")
          .Input("var: Ref(T)")
          .Input("accum: Ref(T)")
          .Input("lr: T")
          .Input("grad: T")
          .Output("out: Ref(T)")
          .Attr(kNumberType)
          .Attr("use_locking: bool = false")
          .Attr("update_slots: bool = true"),
      [](InferenceContext& c) { return SlotUpdateShape(c, false, {2}, 1, 3); });
  Add(r,
      OpDefBuilder("ResourceApplyAdagrad")
          .Input("var: resource")
          .Input("accum: resource")
          .Input("lr: T")
          .Input("grad: T")
          .Attr(kNumberType)
          .Attr("use_locking: bool = false")
          .Attr("update_slots: bool = true")
          .SetIsStateful(),
      [](InferenceContext& c) { return SlotUpdateShape(c, true, {2}, 1, 3); });
  Add(r,
      OpDefBuilder("ResourceApplyAdagradV2")
          .Input("var: resource")
          .Input("accum: resource")
          .Input("lr: T")
          .Input("epsilon: T")
          .Input("grad: T")
          .Attr(kNumberType)
          .Attr("use_locking: bool = false")
          .Attr("update_slots: bool = true")
          .SetIsStateful(),
      [](InferenceContext& c) { return SlotUpdateShape(c, true, {2, 3}, 1, 4); });

  // RMSProp: ms = rho * ms + (1 - rho) * grad^2; mom = momentum * mom + lr * grad / sqrt(ms + epsilon);
  // var -= mom.
  Add(r,
      OpDefBuilder("ApplyRMSProp")
          .Input("var: Ref(T)")
          .Input("ms: Ref(T)")
          .Input("mom: Ref(T)")
          .Input("lr: T")
          .Input("rho: T")
          .Input("momentum: T")
          .Input("epsilon: T")
          .Input("grad: T")
          .Output("out: Ref(T)")
          .Attr(kNumberType)
          .Attr("use_locking: bool = false"),
      [](InferenceContext& c) { return SlotUpdateShape(c, false, {3, 4, 5, 6}, 2, 7); });
  Add(r,
      OpDefBuilder("ResourceApplyRMSProp")
          .Input("var: resource")
          .Input("ms: resource")
          .Input("mom: resource")
          .Input("lr: T")
          .Input("rho: T")
          .Input("momentum: T")
          .Input("epsilon: T")
          .Input("grad: T")
          .Attr(kNumberType)
          .Attr("use_locking: bool = false")
          .SetIsStateful(),
      [](InferenceContext& c) { return SlotUpdateShape(c, true, {3, 4, 5, 6}, 2, 7); });

  // Centered RMSProp: RMSProp with ms - mg^2 (mg the mean gradient) under the square root.
  Add(r,
      OpDefBuilder("ApplyCenteredRMSProp")
          .Input("var: Ref(T)")
          .Input("mg: Ref(T)")
          .Input("ms: Ref(T)")
          .Input("mom: Ref(T)")
          .Input("lr: T")
          .Input("rho: T")
          .Input("momentum: T")
          .Input("epsilon: T")
          .Input("grad: T")
          .Output("out: Ref(T)")
          .Attr(kNumberType)
          .Attr("use_locking: bool = false"),
      [](InferenceContext& c) { return SlotUpdateShape(c, false, {4, 5, 6, 7}, 3, 8); });
  Add(r,
      OpDefBuilder("ResourceApplyCenteredRMSProp")
          .Input("var: resource")
          .Input("mg: resource")
          .Input("ms: resource")
          .Input("mom: resource")
          .Input("lr: T")
          .Input("rho: T")
          .Input("momentum: T")
          .Input("epsilon: T")
          .Input("grad: T")
          .Attr(kNumberType)
          .Attr("use_locking: bool = false")
          .SetIsStateful(),
      [](InferenceContext& c) { return SlotUpdateShape(c, true, {4, 5, 6, 7}, 3, 8); });
  // AMSGrad: Adam dividing by the running maximum of v (vhat).
  Add(r,
      OpDefBuilder("ResourceApplyAdamWithAmsgrad")
          .Input("var: resource")
          .Input("m: resource")
          .Input("v: resource")
          .Input("vhat: resource")
          .Input("beta1_power: T")
          .Input("beta2_power: T")
          .Input("lr: T")
          .Input("beta1: T")
          .Input("beta2: T")
          .Input("epsilon: T")
          .Input("grad: T")
          .Attr(kNumberType)
          .Attr("use_locking: bool = false")
          .SetIsStateful(),
      [](InferenceContext& c) { return SlotUpdateShape(c, true, {4, 5, 6, 7, 8, 9}, 3, 10); });

  // The sparse forms: the same update on the rows `indices` of var and its slots only, grad
  // holding one row per index (indices in order; a row named twice is updated twice).
  auto sparse_shape = [](std::initializer_list<int> scalars, int indices) {
    std::vector<int> sc(scalars);
    return [sc, indices](InferenceContext& c) -> Status {
      for (int i : sc) GRAFT_RETURN_IF_ERROR(c.WithScalar(i));
      return c.WithRank(indices, 1);
    };
  };
  for (const char* name : {"ResourceSparseApplyMomentum", "ResourceSparseApplyKerasMomentum"}) {
    Add(r,
        OpDefBuilder(name)
            .Input("var: resource")
            .Input("accum: resource")
            .Input("lr: T")
            .Input("grad: T")
            .Input("indices: Tindices")
            .Input("momentum: T")
            .Attr(kNumberType)
            .Attr("Tindices: {int32, int64}")
            .Attr("use_locking: bool = false")
            .Attr("use_nesterov: bool = false")
            .SetIsStateful(),
        sparse_shape({2, 5}, 4));
  }
  Add(r,
      OpDefBuilder("ResourceSparseApplyAdagrad")
          .Input("var: resource")
          .Input("accum: resource")
          .Input("lr: T")
          .Input("grad: T")
          .Input("indices: Tindices")
          .Attr(kNumberType)
          .Attr("Tindices: {int32, int64}")
          .Attr("use_locking: bool = false")
          .Attr("update_slots: bool = true")
          .SetIsStateful(),
      sparse_shape({2}, 4));
  Add(r,
      OpDefBuilder("ResourceSparseApplyAdagradV2")
          .Input("var: resource")
          .Input("accum: resource")
          .Input("lr: T")
          .Input("epsilon: T")
          .Input("grad: T")
          .Input("indices: Tindices")
          .Attr(kNumberType)
          .Attr("Tindices: {int32, int64}")
          .Attr("use_locking: bool = false")
          .Attr("update_slots: bool = true")
          .SetIsStateful(),
      sparse_shape({2, 3}, 5));
  Add(r,
      OpDefBuilder("ResourceSparseApplyRMSProp")
          .Input("var: resource")
          .Input("ms: resource")
          .Input("mom: resource")
          .Input("lr: T")
          .Input("rho: T")
          .Input("momentum: T")
          .Input("epsilon: T")
          .Input("grad: T")
          .Input("indices: Tindices")
          .Attr(kNumberType)
          .Attr("Tindices: {int32, int64}")
          .Attr("use_locking: bool = false")
          .SetIsStateful(),
      sparse_shape({3, 4, 5, 6}, 8));
  Add(r,
      OpDefBuilder("ResourceSparseApplyCenteredRMSProp")
          .Input("var: resource")
          .Input("mg: resource")
          .Input("ms: resource")
          .Input("mom: resource")
          .Input("lr: T")
          .Input("rho: T")
          .Input("momentum: T")
          .Input("epsilon: T")
          .Input("grad: T")
          .Input("indices: Tindices")
          .Attr(kNumberType)
          .Attr("Tindices: {int32, int64}")
          .Attr("use_locking: bool = false")
          .SetIsStateful(),
      sparse_shape({4, 5, 6, 7}, 9));
}

}  // namespace graft::ops
