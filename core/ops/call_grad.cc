// The gradient of a function call (PartitionedCall, StatefulPartitionedCall): a call of the
// callee's gradient function, which is built once per graph and callee (Graph's derived
// functions) and reused by every call of it. The gradient function takes the callee's
// arguments and the incoming gradient of each result that carries one (zeros where none
// arrives), recomputes what the gradient needs of the callee's body, and returns the gradient
// of each argument that gets one (variables' handles included: their reads' gradients).
//
// A function runs every stateful op of its body on each call, so the gradient function keeps
// only the ops its results need: the callee's side effects happen once, in the call itself. A
// random op inside the callee is drawn again (as with TensorFlow's recomputation, not its saved
// intermediates).
#include <map>
#include <set>

#include "core/function.h"
#include "core/gradients/function_gradient_chain.h"
#include "core/gradients/function_gradients.h"
#include "core/gradients/grad_ops.h"
#include "core/gradients/gradient_builder.h"
#include "core/gradients/gradient_context.h"
#include "core/ops/builtin_ops.h"

namespace graft::ops {
namespace {

DType TypeOf(const Output& t) { return t.node->output_type(t.index); }

// Copies node n of another graph into `to`, its inputs (and control inputs) mapped.
Status CopyNode(const Node& n, Graph& to, std::map<std::pair<const Node*, int>, Output>* mapped,
                std::map<const Node*, Node*>* copies) {
  std::vector<std::pair<size_t, bool>> sizes;
  GRAFT_RETURN_IF_ERROR(InputArgSizes(n, &sizes));
  NodeSpec spec;
  spec.type = n.type();
  spec.name = n.name();
  spec.attrs = n.attrs();
  size_t k = 0;
  for (const auto& [count, is_list] : sizes) {
    NodeSpec::InputArg arg;
    arg.is_list = is_list;
    for (size_t j = 0; j < count; ++j, ++k) {
      const Output in = n.input(static_cast<int>(k));
      auto it = mapped->find({in.node, in.index});
      if (it == mapped->end()) return errors::Internal("op '", n.name(), "' reads a tensor that was not copied");
      arg.tensors.push_back(it->second);
    }
    spec.inputs.push_back(std::move(arg));
  }
  for (const Node* c : n.control_inputs()) {
    auto it = copies->find(c);
    if (it != copies->end()) spec.control_inputs.push_back(it->second);
  }
  Node* copy = nullptr;
  GRAFT_RETURN_IF_ERROR(to.AddNode(std::move(spec), &copy));
  for (int o = 0; o < copy->num_outputs(); ++o) (*mapped)[{&n, o}] = Output{copy, o};
  (*copies)[&n] = copy;
  return Status::Ok();
}

// Builds the gradient function of calls of f into graph's library (see the top). chain: f's
// link in the chain of functions whose gradients are being built.
Status BuildCallGradient(Graph& graph, const std::string& f, const FunctionGradientChain& chain,
                         Graph::DerivedFunction* out) {
  std::unique_ptr<FunctionBody> body;
  GRAFT_RETURN_IF_ERROR(InstantiateFunction(graph.library(), graph.versions(), f, &body));
  Graph& g = *body->graph;
  const size_t library_size = g.functions().size();
  std::vector<Output> ys, dys;
  for (size_t i = 0; i < body->rets.size(); ++i) {
    const Output& r = body->rets[i];
    if (!CarriesFunctionGradient(TypeOf(r))) continue;
    Output dy;
    GRAFT_RETURN_IF_ERROR(AddPlaceholder(g, StrCat("graft_dy_", i), TypeOf(r), r.node->output_shape(r.index), &dy));
    ys.push_back(r);
    dys.push_back(dy);
  }
  *out = Graph::DerivedFunction{};
  out->num_inputs = static_cast<int>(body->args.size());
  if (ys.empty()) return Status::Ok();
  GradientsOptions options;
  options.grad_ys = dys;
  options.function_chain = &chain;
  std::vector<std::optional<Output>> grads;
  GRAFT_RETURN_IF_ERROR(AddGradients(g, ys, body->args, options, &grads));
  std::vector<Output> rets;
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i]) continue;
    rets.push_back(*grads[i]);
    out->outputs_for.push_back(static_cast<int>(i));
  }
  if (rets.empty()) return Status::Ok();

  // Only what the gradients need, in creation order (a topological order).
  std::set<const Node*> needed;
  std::vector<const Node*> todo;
  for (const Output& r : rets) todo.push_back(r.node);
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    if (!needed.insert(n).second) continue;
    for (const Output& in : n->inputs()) todo.push_back(in.node);
    for (const Node* c : n->control_inputs()) todo.push_back(c);
  }
  for (const Output& a : body->args) needed.insert(a.node);
  for (const Output& d : dys) needed.insert(d.node);
  std::unique_ptr<Graph> pruned = NewFunctionGraph(g);
  std::map<std::pair<const Node*, int>, Output> mapped;
  std::map<const Node*, Node*> copies;
  for (int64_t i = 0; i < g.num_nodes(); ++i) {
    const Node* n = g.NodeAt(i);
    if (n == nullptr || needed.count(n) == 0) continue;
    GRAFT_RETURN_IF_ERROR(CopyNode(*n, *pruned, &mapped, &copies));
    if (n->def().is_stateful && n->type() != "Placeholder") out->stateful = true;
  }
  std::vector<Output> args, results;
  for (const Output& a : body->args) args.push_back(mapped.at({a.node, a.index}));
  for (const Output& d : dys) args.push_back(mapped.at({d.node, d.index}));
  for (const Output& r : rets) {
    results.push_back(mapped.at({r.node, r.index}));
    out->result_types.push_back(TypeOf(r));
  }
  out->name = UniqueFunctionName(graph, StrCat(f, "_call_grad"));
  return AddGraphAsFunction(graph, *pruned, library_size, out->name, args, results);
}

Status CallGrad(GradientContext& ctx) {
  const AttrValue* f = ctx.op->attr("f");
  const FuncValue* fn = f != nullptr ? f->get<FuncValue>() : nullptr;
  if (fn == nullptr) return errors::InvalidArgument("the call has no function attr 'f'");
  const std::string key = StrCat("call_grad:", fn->name);
  const Graph::DerivedFunction* grad = ctx.graph.FindDerivedFunction(key);
  if (grad == nullptr) {
    // Recursion and too deep nesting are refused here, before the body is instantiated.
    FunctionGradientChain chain;
    GRAFT_RETURN_IF_ERROR(EnterFunctionGradient(ctx.function_chain, fn->name, &chain));
    Graph::DerivedFunction built;
    GRAFT_RETURN_IF_ERROR(BuildCallGradient(ctx.graph, fn->name, chain, &built)
                              .WithContext(StrCat("the gradient of function '", fn->name, "'")));
    ctx.graph.AddDerivedFunction(key, std::move(built));
    grad = ctx.graph.FindDerivedFunction(key);
    if (grad == nullptr) return errors::Internal("the gradient function of '", fn->name, "' was not kept");
  }
  if (grad->num_inputs != ctx.num_inputs()) {
    return errors::InvalidArgument("function '", fn->name, "' takes ", grad->num_inputs, " arguments, but the call has ",
                                   ctx.num_inputs(), " inputs");
  }
  if (grad->name.empty()) return Status::Ok();
  GradOps b(ctx);
  std::vector<Output> args;
  for (int i = 0; i < ctx.num_inputs(); ++i) args.push_back(ctx.input(i));
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (!CarriesFunctionGradient(TypeOf(ctx.output(i)))) continue;
    const Output g = ctx.grad(i);
    args.push_back(g.node != nullptr ? g : b.ZerosLike(ctx.output(i)));
  }
  std::vector<DType> tin;
  for (const Output& a : args) tin.push_back(TypeOf(a));
  AttrMap attrs;
  attrs["Tin"] = AttrValue::TypeList(tin);
  attrs["Tout"] = AttrValue::TypeList(grad->result_types);
  attrs["f"] = AttrValue::Func(FuncValue{grad->name, {}});
  Node* call = b.AddOp(grad->stateful ? "StatefulPartitionedCall" : "PartitionedCall",
                       {NodeSpec::InputArg{args, true}}, std::move(attrs));
  GRAFT_RETURN_IF_ERROR(b.status());
  if (call->num_outputs() != static_cast<int>(grad->outputs_for.size())) {
    return errors::Internal("the gradient function of '", fn->name, "' has ", call->num_outputs(), " results for ",
                            grad->outputs_for.size(), " arguments");
  }
  for (size_t k = 0; k < grad->outputs_for.size(); ++k) ctx.set_grad(grad->outputs_for[k], Output{call, static_cast<int>(k)});
  return Status::Ok();
}

}  // namespace

void RegisterCallGradients(GradientRegistry& r) {
  for (const char* name : {"PartitionedCall", "StatefulPartitionedCall"}) AddGradient(r, name, CallGrad);
}

}  // namespace graft::ops
