#include "core/eager/concrete_function.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/eager/tape.h"
#include "core/function_def_export.h"

namespace graft::eager {

Status ConcreteFunction::Create(std::string name, Trace& trace, std::vector<Output> args,
                                std::vector<TensorSpec> arg_specs, const std::vector<Value>& outputs,
                                std::shared_ptr<ConcreteFunction>* out) {
  std::shared_ptr<ConcreteFunction> f(new ConcreteFunction());
  f->name_ = std::move(name);
  for (size_t i = 0; i < outputs.size(); ++i) {
    Output o;
    GRAFT_RETURN_IF_ERROR(trace.Capture(outputs[i], &o).WithContext(StrCat("output ", i)));
    f->outputs_.push_back(o);
  }
  f->args_ = std::move(args);
  f->arg_specs_ = std::move(arg_specs);
  f->capture_placeholders_ = trace.capture_placeholders();
  f->captured_ = trace.captured();
  f->stateful_ = trace.stateful_ops();
  f->graph_ = trace.shared_graph();
  std::vector<Output> feeds = f->args_;
  feeds.insert(feeds.end(), f->capture_placeholders_.begin(), f->capture_placeholders_.end());
  std::unique_ptr<Executor> exe;
  GRAFT_RETURN_IF_ERROR(
      Executor::Create(*f->graph_, feeds, f->outputs_, f->stateful_, DeviceSet::Process(), RewriteOptions{}, &exe));
  f->exe_ = std::move(exe);
  *out = std::move(f);
  return Status::Ok();
}

Status ConcreteFunction::Call(Context& ctx, const std::vector<Value>& args, std::vector<Value>* outputs,
                              const RunControl* control) const {
  if (args.size() != args_.size()) {
    return errors::InvalidArgument("function '", name_, "' takes ", args_.size(), " inputs, but ", args.size(),
                                   " were given");
  }
  if (Trace* t = ctx.current_trace()) return CallInTrace(*t, args, outputs);
  return CallEager(ctx, args, outputs, control);
}

Status ConcreteFunction::CallEager(Context& ctx, const std::vector<Value>& args, std::vector<Value>* outputs,
                                   const RunControl* control) const {
  std::vector<Tensor> feeds;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].is_symbolic() || !args[i].tensor.valid()) {
      return errors::InvalidArgument("function '", name_, "' input ", i, " is not a concrete tensor");
    }
    feeds.push_back(args[i].tensor);
  }
  for (const Value& c : captured_) {
    if (c.is_symbolic()) {
      return errors::FailedPrecondition("function '", name_,
                                        "' captures a tensor of the function it was traced in: call it from there");
    }
    feeds.push_back(c.tensor);
  }
  if (ctx.taping()) return CallTaped(ctx, args, outputs, control);
  std::vector<Tensor> results;
  if (Status st = exe_->Run(feeds, &ctx.resources(), nullptr, &results, nullptr, control); !st.ok()) {
    return st.WithContext(StrCat("function '", name_, "'"));
  }
  outputs->clear();
  for (Tensor& t : results) outputs->push_back(Value::Concrete(std::move(t)));
  return Status::Ok();
}

// Under a gradient tape the body runs op by op through the context, so that the tape records
// each op and the call is differentiable (TensorFlow records a call op whose gradient is a
// function of its own; running the ops eagerly gives the same values and gradients, stateful
// ops included, at eager speed). Every op the outputs or the stateful ops need runs, in
// creation order (a topological order: a node is made after its inputs).
Status ConcreteFunction::CallTaped(Context& ctx, const std::vector<Value>& args, std::vector<Value>* outputs,
                                   const RunControl* control) const {
  if (!graph_->functions().empty()) GRAFT_RETURN_IF_ERROR(ctx.AddFunctions(graph_->functions()));
  std::map<std::pair<const Node*, int>, Value> value_of;
  for (size_t i = 0; i < args.size(); ++i) value_of[{args_[i].node, args_[i].index}] = args[i];
  for (size_t i = 0; i < captured_.size(); ++i) {
    value_of[{capture_placeholders_[i].node, capture_placeholders_[i].index}] = captured_[i];
  }
  std::set<const Node*> run;
  std::vector<const Node*> todo;
  for (const Output& o : outputs_) todo.push_back(o.node);
  for (const Node* n : stateful_) todo.push_back(n);
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    if (value_of.count({n, 0}) != 0 || !run.insert(n).second) continue;
    for (const Output& in : n->inputs()) todo.push_back(in.node);
    for (const Node* c : n->control_inputs()) todo.push_back(c);
  }
  std::vector<const Node*> order(run.begin(), run.end());
  std::sort(order.begin(), order.end(), [](const Node* a, const Node* b) { return a->id() < b->id(); });
  RunControlScope scope(control);  // the ops' own nested runs (While, calls) check it too
  for (const Node* n : order) {
    if (n->type() == "NoOp") continue;
    if (n->type() == "Placeholder") {
      return errors::Internal("function '", name_, "': placeholder '", n->name(), "' is not an argument");
    }
    if (control != nullptr) GRAFT_RETURN_IF_ERROR(control->Check(*n).WithContext(StrCat("function '", name_, "'")));
    std::vector<Value> ins;
    for (const Output& in : n->inputs()) ins.push_back(value_of[{in.node, in.index}]);
    std::vector<Value> outs;
    if (Status st = ExecuteNode(ctx, *n, ins, &outs); !st.ok()) {
      return st.WithContext(StrCat("function '", name_, "', op '", n->name(), "'"));
    }
    for (size_t i = 0; i < outs.size(); ++i) value_of[{n, static_cast<int>(i)}] = std::move(outs[i]);
  }
  outputs->clear();
  for (const Output& o : outputs_) outputs->push_back(value_of[{o.node, o.index}]);
  return Status::Ok();
}

Status ConcreteFunction::FunctionDef(const std::string** out) const {
  std::call_once(function_def_once_, [this]() {
    FunctionSignature sig;
    sig.name = name_;
    for (size_t i = 0; i < args_.size(); ++i) {
      sig.args.push_back(args_[i]);
      sig.arg_names.push_back(StrCat("arg", i));
    }
    for (size_t i = 0; i < capture_placeholders_.size(); ++i) {
      sig.args.push_back(capture_placeholders_[i]);
      sig.arg_names.push_back(StrCat("capture", i));
    }
    for (size_t i = 0; i < outputs_.size(); ++i) {
      sig.rets.push_back(outputs_[i]);
      sig.ret_names.push_back(StrCat("output", i));
    }
    sig.control_outputs = stateful_;
    function_def_status_ = GraphToFunctionDef(*graph_, sig, &function_def_);
  });
  *out = &function_def_;
  return function_def_status_;
}

Status ConcreteFunction::CallInTrace(Trace& trace, const std::vector<Value>& args, std::vector<Value>* outputs) const {
  const std::string* fd = nullptr;
  GRAFT_RETURN_IF_ERROR(FunctionDef(&fd));
  for (const LibraryFunction& f : graph_->functions()) GRAFT_RETURN_IF_ERROR(trace.graph().AddFunction(f));
  GRAFT_RETURN_IF_ERROR(trace.graph().AddFunction(LibraryFunction{name_, *fd}));
  OpCall call;
  call.type = is_stateful() ? "StatefulPartitionedCall" : "PartitionedCall";
  OpCall::Arg in;
  in.is_list = true;
  std::vector<DType> tin, tout;
  for (const Value& v : args) {
    in.values.push_back(v);
    tin.push_back(v.dtype());
  }
  for (const Value& v : captured_) {
    in.values.push_back(v);
    tin.push_back(v.dtype());
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (tin[i] != args_[i].node->output_type(0)) {
      return errors::DTypeError("function '", name_, "' input ", i, " is ", DTypeName(args_[i].node->output_type(0)),
                                ", but a ", DTypeName(tin[i]), " tensor was given");
    }
  }
  for (const Output& o : outputs_) tout.push_back(o.node->output_type(o.index));
  call.inputs.push_back(std::move(in));
  call.attrs["f"] = AttrValue::Func(FuncValue{name_, {}});
  call.attrs["Tin"] = AttrValue::TypeList(tin);
  call.attrs["Tout"] = AttrValue::TypeList(tout);
  return trace.Record(call, outputs);
}

}  // namespace graft::eager
