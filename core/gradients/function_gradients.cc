// Gradients through library functions: see function_gradients.h.
#include "core/gradients/function_gradients.h"

#include <memory>
#include <utility>

#include "core/function.h"
#include "core/function_def_export.h"
#include "core/gradients/grad_ops.h"
#include "core/gradients/gradient_builder.h"

namespace graft {
namespace {

DType TypeOf(const Output& t) { return BaseDType(t.node->output_type(t.index)); }

std::vector<DType> TypesOf(const std::vector<Output>& ts) {
  std::vector<DType> v;
  v.reserve(ts.size());
  for (const Output& t : ts) v.push_back(TypeOf(t));
  return v;
}

// A call of library function f (PartitionedCall, or StatefulPartitionedCall when stateful).
Status Call(GradOps& b, const std::string& f, const std::vector<Output>& args, const std::vector<DType>& tout,
            bool stateful, std::vector<Output>* results) {
  AttrMap attrs;
  attrs["Tin"] = AttrValue::TypeList(TypesOf(args));
  attrs["Tout"] = AttrValue::TypeList(tout);
  attrs["f"] = AttrValue::Func(FuncValue{f, {}});
  Node* n = b.AddOp(stateful ? "StatefulPartitionedCall" : "PartitionedCall", {NodeSpec::InputArg{args, true}},
                    std::move(attrs));
  GRAFT_RETURN_IF_ERROR(b.status());
  results->clear();
  for (int i = 0; i < n->num_outputs(); ++i) results->push_back(Output{n, i});
  return Status::Ok();
}

// A While op of type op_type over inputs.
Status AddWhile(GradOps& b, const std::string& op_type, const std::string& cond, const std::string& body,
                const std::vector<Output>& inputs, const std::vector<PartialShape>& output_shapes,
                std::vector<Output>* outputs) {
  AttrMap attrs;
  attrs["T"] = AttrValue::TypeList(TypesOf(inputs));
  attrs["cond"] = AttrValue::Func(FuncValue{cond, {}});
  attrs["body"] = AttrValue::Func(FuncValue{body, {}});
  attrs["output_shapes"] = AttrValue::ShapeList(output_shapes);
  Node* n = b.AddOp(op_type, {NodeSpec::InputArg{inputs, true}}, std::move(attrs));
  GRAFT_RETURN_IF_ERROR(b.status());
  outputs->clear();
  for (int i = 0; i < n->num_outputs(); ++i) outputs->push_back(Output{n, i});
  return Status::Ok();
}


}  // namespace

std::unique_ptr<Graph> NewFunctionGraph(const Graph& outer) {
  auto g = std::make_unique<Graph>();
  g->set_versions(outer.versions());
  g->SetLibrary(outer.library());
  return g;
}

Status AddPlaceholder(Graph& g, const std::string& name, DType dtype, const PartialShape& shape, Output* out) {
  NodeSpec spec;
  spec.type = "Placeholder";
  spec.name = name;
  spec.attrs["dtype"] = AttrValue::Type(dtype);
  spec.attrs["shape"] = AttrValue::Shape(shape);
  Node* n = nullptr;
  GRAFT_RETURN_IF_ERROR(g.AddNode(std::move(spec), &n));
  *out = Output{n, 0};
  return Status::Ok();
}

Status AddGraphAsFunction(Graph& graph, const Graph& fg, size_t library_size, const std::string& name,
                          const std::vector<Output>& args, const std::vector<Output>& rets) {
  FunctionSignature sig;
  sig.name = name;
  sig.args = args;
  for (const Output& a : args) sig.arg_names.push_back(a.node->name());
  sig.rets = rets;
  for (size_t i = 0; i < rets.size(); ++i) sig.ret_names.push_back(StrCat("output", i));
  std::string fd;
  GRAFT_RETURN_IF_ERROR(GraphToFunctionDef(fg, sig, &fd).WithContext(StrCat("function '", name, "'")));
  const FunctionLibrary& lib = fg.functions();
  for (size_t i = library_size; i < lib.size(); ++i) GRAFT_RETURN_IF_ERROR(graph.AddFunction(lib[i]));
  return graph.AddFunction(LibraryFunction{name, std::move(fd)});
}

bool CarriesFunctionGradient(DType dtype) {
  DType base = BaseDType(dtype);
  return DTypeIsFloating(base) || DTypeIsComplex(base);
}

std::string UniqueFunctionName(const Graph& graph, const std::string& base) {
  if (graph.FindFunction(base) == nullptr) return base;
  for (int i = 1;; ++i) {
    std::string name = StrCat(base, "_", i);
    if (graph.FindFunction(name) == nullptr) return name;
  }
}

Status AddFunctionGradient(Graph& graph, std::string_view function, FunctionGradient* out,
                           const FunctionGradientChain* caller) {
  FunctionGradientChain chain;
  GRAFT_RETURN_IF_ERROR(EnterFunctionGradient(caller, function, &chain));
  std::unique_ptr<FunctionBody> body;
  GRAFT_RETURN_IF_ERROR(InstantiateFunction(graph.library(), graph.versions(), function, &body));
  Graph& g = *body->graph;
  const size_t library_size = g.functions().size();
  FunctionGradient fg;
  std::vector<Output> ys, dys, xs;
  for (size_t i = 0; i < body->rets.size(); ++i) {
    const Output& r = body->rets[i];
    if (!CarriesFunctionGradient(TypeOf(r))) continue;
    Output dy;
    GRAFT_RETURN_IF_ERROR(
        AddPlaceholder(g, StrCat("graft_dy_", i), TypeOf(r), r.node->output_shape(r.index), &dy));
    ys.push_back(r);
    dys.push_back(dy);
    fg.dy_results.push_back(static_cast<int>(i));
  }
  for (size_t i = 0; i < body->args.size(); ++i) {
    if (!CarriesFunctionGradient(TypeOf(body->args[i]))) continue;
    xs.push_back(body->args[i]);
    fg.dx_arguments.push_back(static_cast<int>(i));
  }
  std::vector<Output> dxs;
  if (!ys.empty()) {
    GradientsOptions options;
    options.grad_ys = dys;
    options.unconnected = UnconnectedGradients::kZero;
    options.function_chain = &chain;
    std::vector<std::optional<Output>> grads;
    GRAFT_RETURN_IF_ERROR(AddGradients(g, ys, xs, options, &grads)
                              .WithContext(StrCat("the gradient of function '", function, "'")));
    for (const auto& d : grads) dxs.push_back(*d);
  } else {
    GradOps b(g);
    for (const Output& x : xs) dxs.push_back(b.ZerosLike(x));
    GRAFT_RETURN_IF_ERROR(b.status());
  }
  std::vector<Output> args = body->args;
  args.insert(args.end(), dys.begin(), dys.end());
  fg.name = UniqueFunctionName(graph, StrCat(function, "_grad"));
  GRAFT_RETURN_IF_ERROR(AddGraphAsFunction(graph, g, library_size, fg.name, args, dxs));
  *out = std::move(fg);
  return Status::Ok();
}

Status AddWhileGradient(Graph& graph, const WhileLoopSpec& spec, const std::vector<std::optional<Output>>& grads,
                        std::vector<std::optional<Output>>* dx, const FunctionGradientChain* caller) {
  const size_t k = spec.inputs.size();
  dx->assign(k, std::nullopt);
  std::vector<DType> types = TypesOf(spec.inputs);
  std::vector<int> carried;
  for (size_t i = 0; i < k; ++i) {
    if (CarriesFunctionGradient(types[i])) carried.push_back(static_cast<int>(i));
  }
  if (carried.empty()) return Status::Ok();
  const bool stateful = spec.op_type == "While";

  // The body's gradient function: (vars..., dys of the carried vars...) -> dxs of the carried vars.
  FunctionGradient body_grad;
  GRAFT_RETURN_IF_ERROR(AddFunctionGradient(graph, spec.body, &body_grad, caller));
  if (body_grad.dy_results != carried || body_grad.dx_arguments != carried) {
    return errors::InvalidArgument("the body function '", spec.body,
                                   "' does not return one result of each loop variable's dtype");
  }

  // The variables the body changes are saved, one stack each; one it returns unchanged (a loop
  // invariant) is the same in every iteration and is passed to the backward loop as it is.
  std::vector<bool> saved(k, true);
  {
    std::unique_ptr<FunctionBody> body;
    GRAFT_RETURN_IF_ERROR(InstantiateFunction(graph.library(), graph.versions(), spec.body, &body));
    if (body->rets.size() != k || body->args.size() != k) {
      return errors::InvalidArgument("the body function '", spec.body, "' takes ", body->args.size(),
                                     " arguments and returns ", body->rets.size(), " results for ", k,
                                     " loop variables");
    }
    for (size_t i = 0; i < k; ++i) saved[i] = !(body->rets[i] == body->args[i]);
  }
  std::vector<size_t> saved_vars;
  for (size_t i = 0; i < k; ++i) {
    if (saved[i]) saved_vars.push_back(i);
  }
  const size_t nstacks = saved_vars.size();

  // The accumulating loop: (vars..., count, stacks...) where the body also counts the
  // iterations and pushes the saved vars onto their stacks.
  std::vector<DType> acc_types = types;
  acc_types.push_back(DType::kInt32);
  acc_types.insert(acc_types.end(), nstacks, DType::kResource);
  const std::string acc_body = UniqueFunctionName(graph, StrCat(spec.body, "_accumulate"));
  {
    auto g = NewFunctionGraph(graph);
    const size_t lib = g->functions().size();
    GradOps b(*g);
    std::vector<Output> args, vars, rets;
    for (size_t i = 0; i < acc_types.size(); ++i) {
      Output a;
      GRAFT_RETURN_IF_ERROR(AddPlaceholder(*g, StrCat("arg", i), acc_types[i], PartialShape::Unknown(), &a));
      args.push_back(a);
      if (i < k) vars.push_back(a);
    }
    GRAFT_RETURN_IF_ERROR(Call(b, spec.body, vars, types, stateful, &rets));
    rets.push_back(b.Add(args[k], b.Int32(1)));
    for (size_t j = 0; j < nstacks; ++j) {
      // Stateful: a function runs it on every call although no result uses it.
      b.Op("StackPushV2", {args[k + 1 + j], vars[saved_vars[j]]});
      rets.push_back(args[k + 1 + j]);
    }
    GRAFT_RETURN_IF_ERROR(b.status());
    GRAFT_RETURN_IF_ERROR(AddGraphAsFunction(graph, *g, lib, acc_body, args, rets));
  }
  const std::string acc_cond = UniqueFunctionName(graph, StrCat(spec.cond, "_accumulate"));
  {
    auto g = NewFunctionGraph(graph);
    const size_t lib = g->functions().size();
    GradOps b(*g);
    std::vector<Output> args, vars, rets;
    for (size_t i = 0; i < acc_types.size(); ++i) {
      Output a;
      GRAFT_RETURN_IF_ERROR(AddPlaceholder(*g, StrCat("arg", i), acc_types[i], PartialShape::Unknown(), &a));
      args.push_back(a);
      if (i < k) vars.push_back(a);
    }
    std::unique_ptr<FunctionBody> cond;
    GRAFT_RETURN_IF_ERROR(InstantiateFunction(graph.library(), graph.versions(), spec.cond, &cond));
    std::vector<DType> cond_types;
    for (const Output& r : cond->rets) cond_types.push_back(TypeOf(r));
    GRAFT_RETURN_IF_ERROR(Call(b, spec.cond, vars, cond_types, stateful, &rets));
    GRAFT_RETURN_IF_ERROR(AddGraphAsFunction(graph, *g, lib, acc_cond, args, rets));
  }

  GradOps b(graph);
  std::vector<Output> acc_inputs = spec.inputs;
  acc_inputs.push_back(b.Int32(0));
  std::vector<Output> stacks;
  for (size_t v : saved_vars) {
    stacks.push_back(b.Op("StackV2", {b.Int32(-1)}, {{"elem_type", AttrValue::Type(types[v])}}));
  }
  acc_inputs.insert(acc_inputs.end(), stacks.begin(), stacks.end());
  GRAFT_RETURN_IF_ERROR(b.status());
  std::vector<PartialShape> acc_shapes;
  if (!spec.output_shapes.empty()) {
    acc_shapes = spec.output_shapes;
    acc_shapes.insert(acc_shapes.end(), 1 + nstacks, PartialShape::Scalar());
  }
  std::vector<Output> acc;
  GRAFT_RETURN_IF_ERROR(AddWhile(b, "While", acc_cond, acc_body, acc_inputs, acc_shapes, &acc));
  const Output n = acc[k];
  // The stacks as the accumulating loop leaves them, so that the backward loop pops after
  // every push.
  std::vector<Output> filled(acc.begin() + static_cast<std::ptrdiff_t>(k + 1), acc.end());

  // The backward loop: (i, dys of the carried vars..., per var: its stack or its invariant
  // value...), i counting down to 0.
  std::vector<DType> bwd_types{DType::kInt32};
  for (int c : carried) bwd_types.push_back(types[static_cast<size_t>(c)]);
  for (size_t i = 0; i < k; ++i) bwd_types.push_back(saved[i] ? DType::kResource : types[i]);
  const std::string bwd_body = UniqueFunctionName(graph, StrCat(spec.body, "_backward"));
  {
    auto g = NewFunctionGraph(graph);
    const size_t lib = g->functions().size();
    GradOps gb(*g);
    std::vector<Output> args;
    for (size_t i = 0; i < bwd_types.size(); ++i) {
      Output a;
      GRAFT_RETURN_IF_ERROR(AddPlaceholder(*g, StrCat("arg", i), bwd_types[i], PartialShape::Unknown(), &a));
      args.push_back(a);
    }
    Output i1 = gb.Sub(args[0], gb.Int32(1));
    std::vector<Output> call_args;
    for (size_t i = 0; i < k; ++i) {
      const Output& a = args[1 + carried.size() + i];
      call_args.push_back(saved[i] ? gb.Op("StackPopV2", {a}, {{"elem_type", AttrValue::Type(types[i])}}) : a);
    }
    for (size_t j = 0; j < carried.size(); ++j) call_args.push_back(args[1 + j]);
    GRAFT_RETURN_IF_ERROR(gb.status());
    std::vector<DType> dx_types;
    for (int c : carried) dx_types.push_back(types[static_cast<size_t>(c)]);
    std::vector<Output> dxs;
    GRAFT_RETURN_IF_ERROR(Call(gb, body_grad.name, call_args, dx_types, stateful, &dxs));
    std::vector<Output> rets{i1};
    rets.insert(rets.end(), dxs.begin(), dxs.end());
    rets.insert(rets.end(), args.begin() + static_cast<std::ptrdiff_t>(1 + carried.size()), args.end());
    GRAFT_RETURN_IF_ERROR(AddGraphAsFunction(graph, *g, lib, bwd_body, args, rets));
  }
  const std::string bwd_cond = UniqueFunctionName(graph, StrCat(spec.cond, "_backward"));
  {
    auto g = NewFunctionGraph(graph);
    const size_t lib = g->functions().size();
    GradOps gb(*g);
    std::vector<Output> args;
    for (size_t i = 0; i < bwd_types.size(); ++i) {
      Output a;
      GRAFT_RETURN_IF_ERROR(AddPlaceholder(*g, StrCat("arg", i), bwd_types[i], PartialShape::Unknown(), &a));
      args.push_back(a);
    }
    Output more = gb.Op("Greater", {args[0], gb.Int32(0)});
    GRAFT_RETURN_IF_ERROR(gb.status());
    GRAFT_RETURN_IF_ERROR(AddGraphAsFunction(graph, *g, lib, bwd_cond, args, {more}));
  }

  std::vector<Output> bwd_inputs{n};
  for (int c : carried) {
    const auto& g = grads[static_cast<size_t>(c)];
    bwd_inputs.push_back(g ? *g : b.ZerosLike(spec.inputs[static_cast<size_t>(c)]));
  }
  for (size_t i = 0, j = 0; i < k; ++i) bwd_inputs.push_back(saved[i] ? filled[j++] : spec.inputs[i]);
  GRAFT_RETURN_IF_ERROR(b.status());
  // The gradients take the shapes of the loop variables: without output_shapes, a While's
  // outputs would take its inputs' (the final values') shapes, wrong where shapes change.
  std::vector<PartialShape> bwd_shapes{PartialShape::Scalar()};
  for (size_t j = 0; j < carried.size(); ++j) {
    const size_t c = static_cast<size_t>(carried[j]);
    const Output& in = spec.inputs[c];
    const Output& g = bwd_inputs[1 + j];
    const PartialShape& initial = in.node->output_shape(in.index);
    if (!spec.output_shapes.empty()) {
      bwd_shapes.push_back(spec.output_shapes[c]);
    } else if (initial.IsFullyDefined() && initial == g.node->output_shape(g.index)) {
      bwd_shapes.push_back(initial);
    } else {
      bwd_shapes.push_back(PartialShape::Unknown());
    }
  }
  for (size_t i = 0; i < k; ++i) {
    bwd_shapes.push_back(saved[i] ? PartialShape::Scalar() : spec.inputs[i].node->output_shape(spec.inputs[i].index));
  }
  std::vector<Output> bwd;
  GRAFT_RETURN_IF_ERROR(AddWhile(b, "While", bwd_cond, bwd_body, bwd_inputs, bwd_shapes, &bwd));
  for (size_t j = 0; j < carried.size(); ++j) (*dx)[static_cast<size_t>(carried[j])] = bwd[1 + j];
  return Status::Ok();
}

}  // namespace graft
