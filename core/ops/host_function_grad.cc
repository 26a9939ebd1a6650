// The gradient of a host function (EagerPyFunc, tf.py_function): a GraftHostFunctionGrad op
// that, when it runs, calls the host function again on the same inputs under a gradient tape
// and differentiates the eager ops it ran (core/eager/host_function_grad_kernel.cc). The
// gradient op has no gradient function: a host function is differentiable once, as in
// TensorFlow, and differentiating it again is an error naming the op. PyFunc
// (tf.numpy_function) works on host arrays and is not differentiable.
#include "core/gradients/grad_ops.h"
#include "core/gradients/gradient_context.h"
#include "core/ops/builtin_ops.h"

namespace graft::ops {
namespace {

bool Floating(DType t) { return DTypeIsFloating(t) || DTypeIsComplex(t); }

Status HostFunctionGrad(GradientContext& ctx) {
  const AttrValue* token = ctx.op->attr("token");
  if (token == nullptr || token->get<std::string>() == nullptr) {
    return errors::InvalidArgument("the host function op has no attr 'token'");
  }
  GradOps ops(ctx);
  NodeSpec::InputArg inputs, dy;
  inputs.is_list = dy.is_list = true;
  std::vector<DType> tin, tdy, tdx;
  std::vector<int64_t> dy_outputs, dx_inputs;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    inputs.tensors.push_back(ctx.input(i));
    tin.push_back(ctx.op->input_type(i));
    if (Floating(ctx.op->input_type(i))) {
      dx_inputs.push_back(i);
      tdx.push_back(ctx.op->input_type(i));
    }
  }
  for (int o = 0; o < ctx.num_outputs(); ++o) {
    if (ctx.grad(o).node == nullptr || !Floating(ctx.op->output_type(o))) continue;
    dy.tensors.push_back(ctx.grad(o));
    dy_outputs.push_back(o);
    tdy.push_back(ctx.op->output_type(o));
  }
  if (dx_inputs.empty() || dy_outputs.empty()) return Status::Ok();
  AttrMap attrs;
  attrs["token"] = *token;
  attrs["Tin"] = AttrValue::TypeList(tin);
  attrs["Tdy"] = AttrValue::TypeList(tdy);
  attrs["Tdx"] = AttrValue::TypeList(tdx);
  attrs["dy_outputs"] = AttrValue::IntList(dy_outputs);
  attrs["dx_inputs"] = AttrValue::IntList(dx_inputs);
  Node* g = ops.AddOp("GraftHostFunctionGrad", {std::move(inputs), std::move(dy)}, std::move(attrs));
  if (g == nullptr) return ops.status();
  for (size_t k = 0; k < dx_inputs.size(); ++k) {
    ctx.set_grad(static_cast<int>(dx_inputs[k]), Output{g, static_cast<int>(k)});
  }
  return Status::Ok();
}

}  // namespace

void RegisterHostFunctionGradients(GradientRegistry& r) {
  AddGradient(r, "EagerPyFunc", HostFunctionGrad);
  AddGradient(r, "PyFunc", nullptr);
}

}  // namespace graft::ops
