// Gradient functions of control flow (see builtin_ops.h):
// - functional If/StatelessIf: an If on the same condition whose branches are the gradient
//   functions of the two branch functions (core/gradients/function_gradients.h);
// - functional While/StatelessWhile: AddWhileGradient (an accumulating rerun of the loop, then
//   a backward loop over the body's gradient function);
// - TensorFlow 1 conds: Switch's gradient is a Merge of its two outputs' gradients (only the
//   taken branch's is alive); Merge's gradient sends the gradient to the input that was chosen,
//   a Switch on value_index == i for input i.
// TensorFlow 1 loops (Enter/Exit/NextIteration frames) are differentiated as a whole by the
// gradient builder (core/gradients/tf1_loop.h), not op by op.
#include <string>
#include <vector>

#include "core/gradients/function_gradients.h"
#include "core/gradients/grad_ops.h"
#include "core/gradients/gradient_context.h"
#include "core/ops/builtin_ops.h"

namespace graft::ops {
namespace {


Status FuncAttr(const Node* op, const char* name, std::string* out) {
  const AttrValue* a = op->attr(name);
  const FuncValue* f = a ? a->get<FuncValue>() : nullptr;
  if (f == nullptr) return errors::InvalidArgument("attr '", name, "' is missing or not a function");
  if (!f->attrs.empty()) {
    return errors::Unimplemented(name, ": gradients of calls of function '", f->name, "' with attrs are not supported");
  }
  *out = f->name;
  return Status::Ok();
}

// If(cond, inputs...) -> If(cond, inputs..., dys...) with the branches' gradient functions.
Status IfGrad(GradientContext& ctx) {
  std::string then_fn, else_fn;
  GRAFT_RETURN_IF_ERROR(FuncAttr(ctx.op, "then_branch", &then_fn));
  GRAFT_RETURN_IF_ERROR(FuncAttr(ctx.op, "else_branch", &else_fn));
  FunctionGradient gt, ge;
  GRAFT_RETURN_IF_ERROR(AddFunctionGradient(ctx.graph, then_fn, &gt, ctx.function_chain));
  GRAFT_RETURN_IF_ERROR(AddFunctionGradient(ctx.graph, else_fn, &ge, ctx.function_chain));
  if (gt.dy_results != ge.dy_results || gt.dx_arguments != ge.dx_arguments) {
    return errors::InvalidArgument("the branch functions '", then_fn, "' and '", else_fn,
                                   "' do not have the same signature");
  }
  if (gt.dx_arguments.empty()) return Status::Ok();
  GradOps b(ctx);
  std::vector<Output> inputs;
  std::vector<DType> tin, tout;
  std::vector<PartialShape> shapes;
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    inputs.push_back(ctx.input(i));
    tin.push_back(ctx.op->input_type(i));
  }
  for (int r : gt.dy_results) {
    if (r >= ctx.num_outputs()) {
      return errors::InvalidArgument("branch function '", then_fn, "' returns more results than the op has outputs");
    }
    Output g = ctx.grad(r);
    if (g.node == nullptr) g = b.ZerosLike(ctx.output(r));
    inputs.push_back(g);
    tin.push_back(ctx.op->output_type(r));
  }
  for (int a : gt.dx_arguments) {
    if (a + 1 >= ctx.num_inputs()) {
      return errors::InvalidArgument("branch function '", then_fn, "' takes more arguments than the op passes");
    }
    tout.push_back(ctx.op->input_type(a + 1));
    const Output in = ctx.input(a + 1);
    shapes.push_back(in.node->output_shape(in.index));
  }
  GRAFT_RETURN_IF_ERROR(b.status());
  AttrMap attrs;
  attrs["Tcond"] = AttrValue::Type(ctx.op->input_type(0));
  attrs["Tin"] = AttrValue::TypeList(tin);
  attrs["Tout"] = AttrValue::TypeList(tout);
  attrs["then_branch"] = AttrValue::Func(FuncValue{gt.name, {}});
  attrs["else_branch"] = AttrValue::Func(FuncValue{ge.name, {}});
  attrs["output_shapes"] = AttrValue::ShapeList(shapes);
  Node* n = b.AddOp(ctx.op->type(), {NodeSpec::InputArg{{ctx.input(0)}, false}, NodeSpec::InputArg{inputs, true}},
                    std::move(attrs));
  GRAFT_RETURN_IF_ERROR(b.status());
  for (size_t j = 0; j < gt.dx_arguments.size(); ++j) {
    ctx.set_grad(gt.dx_arguments[j] + 1, Output{n, static_cast<int>(j)});
  }
  return Status::Ok();
}

Status WhileGrad(GradientContext& ctx) {
  WhileLoopSpec spec;
  spec.op_type = ctx.op->type();
  GRAFT_RETURN_IF_ERROR(FuncAttr(ctx.op, "cond", &spec.cond));
  GRAFT_RETURN_IF_ERROR(FuncAttr(ctx.op, "body", &spec.body));
  for (int i = 0; i < ctx.num_inputs(); ++i) spec.inputs.push_back(ctx.input(i));
  if (const AttrValue* a = ctx.op->attr("output_shapes")) {
    if (const auto* s = a->get<std::vector<PartialShape>>()) spec.output_shapes = *s;
  }
  if (!spec.output_shapes.empty() && spec.output_shapes.size() != spec.inputs.size()) spec.output_shapes.clear();
  std::vector<std::optional<Output>> dx;
  GRAFT_RETURN_IF_ERROR(AddWhileGradient(ctx.graph, spec, ctx.grad_outputs, &dx, ctx.function_chain));
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (dx[static_cast<size_t>(i)]) ctx.set_grad(i, *dx[static_cast<size_t>(i)]);
  }
  return Status::Ok();
}

// Switch(data, pred) -> (false, true): the data's gradient is whichever output's is alive.
Status SwitchGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output gf = ctx.grad(0), gt = ctx.grad(1);
  if (gf.node == nullptr) gf = b.ZerosLike(ctx.output(0));
  if (gt.node == nullptr) gt = b.ZerosLike(ctx.output(1));
  Node* m = b.AddOp("Merge", {NodeSpec::InputArg{{gf, gt}, true}});
  GRAFT_RETURN_IF_ERROR(b.status());
  ctx.set_grad(0, Output{m, 0});
  return Status::Ok();
}

// Merge(inputs...) -> (output, value_index): input i's gradient is the output's gradient when
// value_index == i, dead otherwise.
Status MergeGrad(GradientContext& ctx) {
  GradOps b(ctx);
  Output g = ctx.grad(0);
  if (g.node == nullptr) return Status::Ok();
  const Output index = ctx.output(1);
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    Output pred = b.Op("Equal", {index, b.Int32(i)});
    Node* s = b.AddOp("Switch", {NodeSpec::InputArg{{g}, false}, NodeSpec::InputArg{{pred}, false}});
    GRAFT_RETURN_IF_ERROR(b.status());
    ctx.set_grad(i, Output{s, 1});
  }
  return Status::Ok();
}

}  // namespace

void RegisterControlFlowGradients(GradientRegistry& r) {
  AddGradient(r, "If", IfGrad);
  AddGradient(r, "StatelessIf", IfGrad);
  AddGradient(r, "While", WhileGrad);
  AddGradient(r, "StatelessWhile", WhileGrad);
  AddGradient(r, "Switch", SwitchGrad);
  AddGradient(r, "Merge", MergeGrad);
}

}  // namespace graft::ops
