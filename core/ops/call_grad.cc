// The gradient of a function call (PartitionedCall, StatefulPartitionedCall): the callee's
// body is inlined next to the gradient (its forward ops recomputed from the call's inputs) and
// differentiated with the same builder, seeded with the gradients of the call's outputs. Ops
// that no gradient needs are never run, so the callee's side effects happen once, in the call
// itself; a random op inside the callee would be drawn again (as with TensorFlow's
// recomputation, not its saved intermediates).
#include <map>

#include "core/function.h"
#include "core/gradients/grad_ops.h"
#include "core/gradients/gradient_builder.h"
#include "core/gradients/gradient_context.h"
#include "core/ops/builtin_ops.h"

namespace graft::ops {
namespace {

Status CallGrad(GradientContext& ctx) {
  const AttrValue* f = ctx.op->attr("f");
  const FuncValue* fn = f != nullptr ? f->get<FuncValue>() : nullptr;
  if (fn == nullptr) return errors::InvalidArgument("the call has no function attr 'f'");
  std::unique_ptr<FunctionBody> body;
  GRAFT_RETURN_IF_ERROR(InstantiateFunction(ctx.graph.library(), ctx.graph.versions(), fn->name, &body));
  if (body->args.size() != static_cast<size_t>(ctx.num_inputs()) ||
      body->rets.size() != static_cast<size_t>(ctx.num_outputs())) {
    return errors::InvalidArgument("function '", fn->name, "' does not match the call's inputs and outputs");
  }
  // Inline the body: each argument is an Identity of the call's input, so that arguments fed
  // the same tensor, or tensors that depend on one another, each get their own gradient.
  GradOps ops(ctx);
  std::map<std::pair<const Node*, int>, Output> mapped;
  std::vector<Output> xs;
  for (size_t i = 0; i < body->args.size(); ++i) {
    const Output arg = ops.Op("Identity", {ctx.input(static_cast<int>(i))});
    if (!ops.ok()) return ops.status();
    mapped[{body->args[i].node, body->args[i].index}] = arg;
    xs.push_back(arg);
  }
  const Graph& bg = *body->graph;
  for (int64_t i = 0; i < bg.num_nodes(); ++i) {
    const Node* n = bg.NodeAt(i);
    if (n == nullptr || mapped.count({n, 0}) != 0 || n->type() == "NoOp") continue;
    std::vector<std::pair<size_t, bool>> sizes;
    GRAFT_RETURN_IF_ERROR(InputArgSizes(*n, &sizes));
    NodeSpec spec;
    spec.type = n->type();
    spec.name = n->name();
    spec.attrs = n->attrs();
    size_t k = 0;
    for (const auto& [count, is_list] : sizes) {
      NodeSpec::InputArg arg;
      arg.is_list = is_list;
      for (size_t j = 0; j < count; ++j, ++k) {
        const Output in = n->input(static_cast<int>(k));
        auto it = mapped.find({in.node, in.index});
        if (it == mapped.end()) {
          return errors::Internal("inlining '", fn->name, "': op '", n->name(), "' reads an unknown tensor");
        }
        arg.tensors.push_back(it->second);
      }
      spec.inputs.push_back(std::move(arg));
    }
    Node* copy = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.graph.AddNode(std::move(spec), &copy).WithContext(StrCat("inlining '", fn->name, "'")));
    for (int o = 0; o < copy->num_outputs(); ++o) mapped[{n, o}] = Output{copy, o};
  }
  std::vector<Output> ys, dys;
  for (size_t i = 0; i < body->rets.size(); ++i) {
    const Output g = ctx.grad(static_cast<int>(i));
    if (g.node == nullptr) continue;
    auto it = mapped.find({body->rets[i].node, body->rets[i].index});
    if (it == mapped.end()) return errors::Internal("inlining '", fn->name, "': output ", i, " is unknown");
    ys.push_back(it->second);
    dys.push_back(g);
  }
  if (ys.empty()) return Status::Ok();
  GradientsOptions options;
  options.grad_ys = dys;
  options.scope = "body";
  std::vector<std::optional<Output>> grads;
  GRAFT_RETURN_IF_ERROR(AddGradients(ctx.graph, ys, xs, options, &grads));
  for (size_t i = 0; i < grads.size(); ++i) {
    if (grads[i]) ctx.set_grad(static_cast<int>(i), *grads[i]);
  }
  return Status::Ok();
}

}  // namespace

void RegisterCallGradients(GradientRegistry& r) {
  for (const char* name : {"PartitionedCall", "StatefulPartitionedCall"}) AddGradient(r, name, CallGrad);
}

}  // namespace graft::ops
