#include "core/eager/control_flow.h"

#include <atomic>

#include "core/function_def_export.h"
#include "core/tensor_truth.h"

namespace graft::eager {
namespace {

std::atomic<int64_t> next_branch_id{0};

std::vector<Arg> AsArgs(const std::vector<Value>& values) {
  std::vector<Arg> args;
  for (const Value& v : values) {
    Arg a;
    a.value = v;
    args.push_back(std::move(a));
  }
  return args;
}

// Whether a concrete one-element predicate is true (core/tensor_truth.h).
Status Truth(const Value& v, bool* out) {
  if (v.is_symbolic()) return errors::InvalidArgument("the predicate is symbolic outside a trace");
  const Tensor& t = v.tensor;
  if (t.num_elements() != 1) {
    return errors::InvalidArgument("the predicate must be a scalar, but has shape ", t.shape().ToString());
  }
  if (!HasTruthValue(t.dtype())) {
    return errors::DTypeError("a predicate of dtype ", DTypeName(t.dtype()), " is not supported");
  }
  return ElementTruth(t, out);
}

// One traced branch (or loop condition / body): its trace, argument Placeholders and outputs.
struct Branch {
  std::unique_ptr<Trace> trace;
  std::vector<Output> args;
  std::vector<Output> outputs;
};

Status TraceBranch(Context& ctx, const TraceFn& fn, const std::vector<TensorSpec>& specs, const char* what,
                   Branch* out) {
  Trace* parent = ctx.current_trace();
  out->trace = std::make_unique<Trace>(&ctx, parent, parent->may_create_variables());
  std::vector<Arg> args;
  for (size_t i = 0; i < specs.size(); ++i) {
    Output o;
    GRAFT_RETURN_IF_ERROR(out->trace->AddArg(specs[i].dtype, specs[i].shape, StrCat("arg", i), &o));
    out->args.push_back(o);
    Arg a;
    a.value = Value::Symbolic(o, out->trace->shared_graph());
    args.push_back(std::move(a));
  }
  std::vector<Value> results;
  {
    Context::TraceScope scope(out->trace.get());
    GRAFT_RETURN_IF_ERROR(fn(ctx, args, &results).WithContext(what));
  }
  for (size_t i = 0; i < results.size(); ++i) {
    Output o;
    GRAFT_RETURN_IF_ERROR(out->trace->Capture(results[i], &o).WithContext(StrCat(what, " output ", i)));
    out->outputs.push_back(o);
  }
  return Status::Ok();
}

// Placeholders standing for another branch's captures (unused here, but every branch of one op
// takes the same inputs).
Status AddUnused(Trace& t, const std::vector<Value>& others, std::vector<Output>* out) {
  for (const Value& v : others) {
    NodeSpec spec;
    spec.type = "Placeholder";
    spec.name = "unused";
    spec.attrs["dtype"] = AttrValue::Type(v.dtype());
    Node* n = nullptr;
    GRAFT_RETURN_IF_ERROR(t.graph().AddNode(std::move(spec), &n));
    out->push_back(Output{n, 0});
  }
  return Status::Ok();
}

// Writes branch b as function `name` with arguments args and results rets into the library of
// the trace recording the op (with the functions it calls).
Status AddFunction(Trace& recorder, Branch& b, const std::string& name, const std::vector<Output>& args,
                   const std::vector<Output>& rets) {
  FunctionSignature sig;
  sig.name = name;
  sig.args = args;
  for (size_t i = 0; i < args.size(); ++i) sig.arg_names.push_back(StrCat("arg", i));
  sig.rets = rets;
  for (size_t i = 0; i < rets.size(); ++i) sig.ret_names.push_back(StrCat("output", i));
  sig.control_outputs = b.trace->stateful_ops();
  std::string fd;
  GRAFT_RETURN_IF_ERROR(GraphToFunctionDef(b.trace->graph(), sig, &fd));
  for (const LibraryFunction& f : b.trace->graph().functions()) GRAFT_RETURN_IF_ERROR(recorder.graph().AddFunction(f));
  return recorder.graph().AddFunction(LibraryFunction{name, std::move(fd)});
}

// shape is at least as specific as general (TensorFlow's shape-less-than-or-equal): general
// has an unknown rank, or the same rank with each of its known dims equal to shape's.
bool AtLeastAsSpecific(const PartialShape& shape, const PartialShape& general) {
  if (!general.known_rank()) return true;
  if (shape.rank() != general.rank()) return false;
  for (int i = 0; i < general.rank(); ++i) {
    if (general.dim(i) != kUnknownDim && shape.dim(i) != general.dim(i)) return false;
  }
  return true;
}

std::vector<TensorSpec> SpecsOf(const std::vector<Value>& values) {
  std::vector<TensorSpec> specs;
  for (const Value& v : values) specs.push_back(TensorSpec{v.dtype(), v.shape(), ""});
  return specs;
}

std::vector<DType> TypesOf(const std::vector<Output>& outs) {
  std::vector<DType> types;
  for (const Output& o : outs) types.push_back(o.node->output_type(o.index));
  return types;
}

std::vector<Value> Concat(std::vector<Value> a, const std::vector<Value>& b, const std::vector<Value>& c) {
  a.insert(a.end(), b.begin(), b.end());
  a.insert(a.end(), c.begin(), c.end());
  return a;
}

std::vector<Output> Concat(std::vector<Output> a, const std::vector<Output>& b, const std::vector<Output>& c) {
  a.insert(a.end(), b.begin(), b.end());
  a.insert(a.end(), c.begin(), c.end());
  return a;
}

}  // namespace

Status Cond(Context& ctx, const Value& pred, const std::vector<Value>& inputs, const TraceFn& then_fn,
            const TraceFn& else_fn, std::vector<Value>* outputs) {
  Trace* recorder = ctx.current_trace();
  if (recorder == nullptr) {
    bool taken = false;
    GRAFT_RETURN_IF_ERROR(Truth(pred, &taken).WithContext("cond"));
    return (taken ? then_fn : else_fn)(ctx, AsArgs(inputs), outputs).WithContext(taken ? "cond: the true branch"
                                                                                          : "cond: the false branch");
  }
  std::vector<TensorSpec> specs = SpecsOf(inputs);
  Branch t, e;
  GRAFT_RETURN_IF_ERROR(TraceBranch(ctx, then_fn, specs, "cond: the true branch", &t));
  GRAFT_RETURN_IF_ERROR(TraceBranch(ctx, else_fn, specs, "cond: the false branch", &e));
  std::vector<DType> tout = TypesOf(t.outputs), eout = TypesOf(e.outputs);
  if (tout != eout) {
    return errors::InvalidArgument("cond: the true branch returns ", tout.size(), " values (",
                                   AttrValue::TypeList(tout).ToString(), ") and the false branch ", eout.size(), " (",
                                   AttrValue::TypeList(eout).ToString(), "): they must match");
  }
  // Inputs of the op: the operands, the true branch's captures, the false branch's.
  std::vector<Output> t_unused, e_unused;
  GRAFT_RETURN_IF_ERROR(AddUnused(*t.trace, e.trace->captured(), &t_unused));
  GRAFT_RETURN_IF_ERROR(AddUnused(*e.trace, t.trace->captured(), &e_unused));
  int64_t id = next_branch_id++;
  std::string then_name = StrCat("cond_true_", id), else_name = StrCat("cond_false_", id);
  GRAFT_RETURN_IF_ERROR(AddFunction(*recorder, t, then_name, Concat(t.args, t.trace->capture_placeholders(), t_unused),
                                    t.outputs));
  GRAFT_RETURN_IF_ERROR(AddFunction(*recorder, e, else_name, Concat(e.args, e_unused, e.trace->capture_placeholders()),
                                    e.outputs));
  std::vector<Value> in = Concat(inputs, t.trace->captured(), e.trace->captured());
  bool stateful = !t.trace->stateful_ops().empty() || !e.trace->stateful_ops().empty();
  OpCall op;
  op.type = stateful ? "If" : "StatelessIf";
  op.inputs = {{{pred}, false}, {in, true}};
  op.attrs["then_branch"] = AttrValue::Func(FuncValue{then_name, {}});
  op.attrs["else_branch"] = AttrValue::Func(FuncValue{else_name, {}});
  op.attrs["Tout"] = AttrValue::TypeList(tout);
  // Each output has the most specific shape both branches' outputs have (TensorFlow's cond).
  std::vector<PartialShape> shapes;
  for (size_t i = 0; i < tout.size(); ++i) {
    shapes.push_back(t.outputs[i].node->output_shape(t.outputs[i].index)
                         .MostSpecificCompatible(e.outputs[i].node->output_shape(e.outputs[i].index)));
  }
  op.attrs["output_shapes"] = AttrValue::ShapeList(std::move(shapes));
  return recorder->Record(op, outputs);
}

Status WhileLoop(Context& ctx, const TraceFn& cond_fn, const TraceFn& body_fn, const std::vector<Value>& loop_vars,
                 std::vector<Value>* outputs, const std::vector<std::optional<PartialShape>>& shape_invariants) {
  if (!shape_invariants.empty() && shape_invariants.size() != loop_vars.size()) {
    return errors::InvalidArgument("while_loop: ", shape_invariants.size(), " shape invariants for ", loop_vars.size(),
                                   " loop variables");
  }
  Trace* recorder = ctx.current_trace();
  if (recorder == nullptr) {
    std::vector<Value> vars = loop_vars;
    for (;;) {
      std::vector<Value> c;
      GRAFT_RETURN_IF_ERROR(cond_fn(ctx, AsArgs(vars), &c).WithContext("while_loop: the condition"));
      if (c.size() != 1) return errors::InvalidArgument("while_loop: the condition returned ", c.size(), " values, not 1");
      bool go = false;
      GRAFT_RETURN_IF_ERROR(Truth(c[0], &go).WithContext("while_loop: the condition"));
      if (!go) break;
      std::vector<Value> next;
      GRAFT_RETURN_IF_ERROR(body_fn(ctx, AsArgs(vars), &next).WithContext("while_loop: the body"));
      if (next.size() != vars.size()) {
        return errors::InvalidArgument("while_loop: the body returned ", next.size(), " values for ", vars.size(),
                                       " loop variables");
      }
      for (size_t i = 0; i < vars.size(); ++i) {
        if (next[i].dtype() != vars[i].dtype()) {
          return errors::DTypeError("while_loop: loop variable ", i, " is ", DTypeName(vars[i].dtype()),
                                    ", but the body returned ", DTypeName(next[i].dtype()));
        }
      }
      vars = std::move(next);
    }
    *outputs = std::move(vars);
    return Status::Ok();
  }
  // Each loop variable is traced with its shape invariant, or its entry shape.
  std::vector<TensorSpec> specs = SpecsOf(loop_vars);
  for (size_t i = 0; i < shape_invariants.size(); ++i) {
    if (!shape_invariants[i]) continue;
    if (!AtLeastAsSpecific(specs[i].shape, *shape_invariants[i])) {
      return errors::InvalidArgument("while_loop: the shape invariant of loop variable ", i,
                                     " is not compatible with its initial shape: it enters the loop with shape ",
                                     specs[i].shape.ToString(), ", but the shape invariant is ",
                                     shape_invariants[i]->ToString());
    }
    specs[i].shape = *shape_invariants[i];
  }
  Branch c, b;
  GRAFT_RETURN_IF_ERROR(TraceBranch(ctx, cond_fn, specs, "while_loop: the condition", &c));
  GRAFT_RETURN_IF_ERROR(TraceBranch(ctx, body_fn, specs, "while_loop: the body", &b));
  if (c.outputs.size() != 1) {
    return errors::InvalidArgument("while_loop: the condition returned ", c.outputs.size(), " values, not 1");
  }
  std::vector<DType> want;
  for (const Value& v : loop_vars) want.push_back(v.dtype());
  if (TypesOf(b.outputs) != want) {
    return errors::InvalidArgument("while_loop: the body returns ", AttrValue::TypeList(TypesOf(b.outputs)).ToString(),
                                   " for loop variables of ", AttrValue::TypeList(want).ToString());
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    const PartialShape& after = b.outputs[i].node->output_shape(b.outputs[i].index);
    if (!AtLeastAsSpecific(after, specs[i].shape)) {
      const bool given = i < shape_invariants.size() && shape_invariants[i];
      return errors::InvalidArgument(
          "while_loop: loop variable ", i, " enters the loop with shape ", loop_vars[i].shape().ToString(),
          given ? StrCat(" (shape invariant ", specs[i].shape.ToString(), ")") : std::string(), ", but has shape ",
          after.ToString(), " after one iteration. To allow the shape to vary across iterations, give ",
          given ? "a less specific shape invariant" : "a shape invariant (shape_invariants) of a less specific shape");
    }
  }
  // Inputs (and outputs) of the op: the loop variables, the condition's captures, the body's;
  // the body passes the captures through unchanged.
  std::vector<Output> c_unused, b_unused;
  GRAFT_RETURN_IF_ERROR(AddUnused(*c.trace, b.trace->captured(), &c_unused));
  GRAFT_RETURN_IF_ERROR(AddUnused(*b.trace, c.trace->captured(), &b_unused));
  int64_t id = next_branch_id++;
  std::string cond_name = StrCat("while_cond_", id), body_name = StrCat("while_body_", id);
  GRAFT_RETURN_IF_ERROR(
      AddFunction(*recorder, c, cond_name, Concat(c.args, c.trace->capture_placeholders(), c_unused), c.outputs));
  std::vector<Output> body_args = Concat(b.args, b_unused, b.trace->capture_placeholders());
  std::vector<Output> body_rets = Concat(b.outputs, b_unused, b.trace->capture_placeholders());
  GRAFT_RETURN_IF_ERROR(AddFunction(*recorder, b, body_name, body_args, body_rets));
  std::vector<Value> in = Concat(loop_vars, c.trace->captured(), b.trace->captured());
  std::vector<DType> types;
  for (const Value& v : in) types.push_back(v.dtype());
  bool stateful = !c.trace->stateful_ops().empty() || !b.trace->stateful_ops().empty();
  OpCall op;
  op.type = stateful ? "While" : "StatelessWhile";
  op.inputs = {{in, true}};
  op.attrs["T"] = AttrValue::TypeList(types);
  op.attrs["cond"] = AttrValue::Func(FuncValue{cond_name, {}});
  op.attrs["body"] = AttrValue::Func(FuncValue{body_name, {}});
  // The loop's outputs have the shapes the body was traced with (captures pass through).
  std::vector<PartialShape> shapes;
  for (const TensorSpec& spec : specs) shapes.push_back(spec.shape);
  for (size_t i = specs.size(); i < in.size(); ++i) shapes.push_back(in[i].shape());
  op.attrs["output_shapes"] = AttrValue::ShapeList(std::move(shapes));
  std::vector<Value> all;
  GRAFT_RETURN_IF_ERROR(recorder->Record(op, &all));
  outputs->assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(loop_vars.size()));
  return Status::Ok();
}

}  // namespace graft::eager
