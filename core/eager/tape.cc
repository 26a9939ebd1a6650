// Tape: see tape.h.
#include "core/eager/tape.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include "core/gradients/grad_ops.h"
#include "core/gradients/gradient_context.h"
#include "core/thread_owned.h"
#include "core/variable.h"

namespace graft::eager {
namespace {

// The tapes recording on this thread, innermost last (ThreadOwned: no thread_local with a
// destructor, which would keep a dlopen'ed libgraft loaded).
std::vector<Tape*>& Tapes() { return ThreadOwned<std::vector<Tape*>>(); }

const ResourceHandle* HandleOf(const Value& v) {
  if (v.is_symbolic() || v.tensor.dtype() != DType::kResource) return nullptr;
  auto* hb = dynamic_cast<const HandleBuffer*>(v.tensor.buffer().get());
  return hb != nullptr ? &hb->handle() : nullptr;
}

// A read of a trainable variable (the reads a tape watching accessed variables watches).
bool IsTrainableVariableRead(const OpCall& op) {
  if ((op.type != "ReadVariableOp" && op.type != "ResourceGather") || op.inputs.empty() ||
      op.inputs[0].values.size() != 1) {
    return false;
  }
  const Value& v = op.inputs[0].values[0];
  if (HandleOf(v) == nullptr) return false;
  auto* hb = dynamic_cast<const HandleBuffer*>(v.tensor.buffer().get());
  return hb != nullptr && hb->trainable();
}

}  // namespace

Status ExecuteNode(Context& ctx, const Node& node, const std::vector<Value>& inputs, std::vector<Value>* outputs) {
  if (node.type() == "Const") {
    const AttrValue* a = node.attr("value");
    const Tensor* t = a != nullptr ? a->get<Tensor>() : nullptr;
    if (t == nullptr) return errors::Internal("Const op '", node.name(), "' has no value");
    if (ctx.current_trace() == nullptr) {
      *outputs = {Value::Concrete(*t)};
      return Status::Ok();
    }
  }
  std::vector<std::pair<size_t, bool>> sizes;
  GRAFT_RETURN_IF_ERROR(InputArgSizes(node, &sizes));
  OpCall call;
  call.type = node.type();
  for (const auto& [name, value] : node.attrs()) {
    if (!name.empty() && name[0] != '_') call.attrs.emplace(name, value);
  }
  size_t k = 0;
  for (const auto& [n, is_list] : sizes) {
    OpCall::Arg arg;
    arg.is_list = is_list;
    for (size_t i = 0; i < n; ++i) {
      if (k >= inputs.size()) return errors::Internal("op '", node.name(), "': too few inputs to replay");
      arg.values.push_back(inputs[k++]);
    }
    call.inputs.push_back(std::move(arg));
  }
  return ctx.Execute(call, outputs);
}

Tape::~Tape() {
  // Destroyed while recording (the host forgot to stop it): forget it on this thread.
  auto it = std::find(Tapes().begin(), Tapes().end(), this);
  if (it != Tapes().end()) Tapes().erase(it);
}

const std::vector<Tape*>& Tape::Active() { return Tapes(); }

Status Tape::Start() {
  if (recording_) return errors::FailedPrecondition("the gradient tape is already recording");
  Tapes().push_back(this);
  recording_ = true;
  return Status::Ok();
}

Status Tape::Stop() {
  if (!recording_) return errors::FailedPrecondition("the gradient tape is not recording");
  auto it = std::find(Tapes().begin(), Tapes().end(), this);
  if (it == Tapes().end()) {
    return errors::FailedPrecondition("the gradient tape records on another thread: stop it there");
  }
  Tapes().erase(it);
  recording_ = false;
  return Status::Ok();
}

uint64_t Tape::Key(const Value& v) {
  // Variables are known by their resource (any handle of the same variable is the same source);
  // other tensors by their id.
  if (const ResourceHandle* h = HandleOf(v)) {
    return std::hash<std::string>()(h->container + '\0' + h->name) | (uint64_t{1} << 63);
  }
  return v.id & ~(uint64_t{1} << 63);
}

uint64_t Tape::Resolve(const Value& v) const {
  const uint64_t k = Key(v);
  if (!options_.alias_buffers || tracked_.count(k) != 0 || v.is_symbolic() || !v.tensor.valid()) return k;
  auto it = key_of_buffer_.find(v.tensor.buffer().get());
  if (it == key_of_buffer_.end()) return k;
  // Ops such as Reshape and Identity hand on their input's buffer: the latest tensor made with
  // this buffer that has v's dtype and shape.
  for (auto e = it->second.rbegin(); e != it->second.rend(); ++e) {
    if (e->dtype == v.tensor.dtype() && e->dims == v.tensor.dims()) return e->key;
  }
  return k;
}

void Tape::NoteBuffer(const Tensor& t, uint64_t key) {
  if (t.buffer() == nullptr) return;
  key_of_buffer_[t.buffer().get()].push_back({key, t.dtype(), t.dims()});
}

Status Tape::Watch(const Value& v) {
  if (v.is_symbolic()) return Status::Ok();  // in a trace every tensor can be differentiated
  if (!v.tensor.valid()) return errors::InvalidArgument("cannot watch an empty value");
  if (!IsDifferentiableDType(v.tensor.dtype())) return Status::Ok();  // TF ignores integer sources
  const uint64_t k = Key(v);
  if (k == 0) return errors::InvalidArgument("this value cannot be watched (it has no identity)");
  if (watched_.emplace(k, v).second) {
    tracked_.insert(k);
    if (options_.alias_buffers) NoteBuffer(v.tensor, k);
    if (HandleOf(v) != nullptr) watched_variables_.push_back(v);
  }
  return Status::Ok();
}

Status Tape::WatchTensor(const Tensor& t, Value* as_value) {
  *as_value = Value::Concrete(t);
  return Watch(*as_value);
}

bool Tape::ShouldRecord(const OpCall& op) const {
  for (const OpCall::Arg& arg : op.inputs) {
    for (const Value& v : arg.values) {
      if (tracked_.count(Resolve(v)) != 0) return true;
    }
  }
  return false;
}

void Tape::Record(Context* ctx, const OpCall& op, const std::vector<Value>& outputs) {
  if (outputs.empty()) return;  // nothing to differentiate (assignments, prints)
  if (options_.watch_accessed_variables && IsTrainableVariableRead(op)) (void)Watch(op.inputs[0].values[0]);
  if (!ShouldRecord(op)) return;
  if (ctx_ == nullptr) ctx_ = ctx;
  Entry e;
  e.type = op.type;
  e.attrs = op.attrs;
  for (const OpCall::Arg& arg : op.inputs) {
    e.args.emplace_back(arg.values.size(), arg.is_list);
    for (const Value& v : arg.values) {
      e.inputs.push_back(v);
      // An input known by its buffer only: from now on it is the tracked tensor.
      if (options_.alias_buffers) e.inputs.back().id = Resolve(v);
    }
  }
  e.outputs = outputs;
  const size_t index = entries_.size();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const uint64_t k = Key(outputs[i]);
    if (k == 0 || producer_.count(k) != 0) continue;
    producer_[k] = {index, static_cast<int>(i)};
    tracked_.insert(k);
    if (options_.alias_buffers && outputs[i].tensor.valid()) NoteBuffer(outputs[i].tensor, k);
  }
  entries_.push_back(std::move(e));
}

Status Tape::Gradient(const std::vector<Value>& targets, const std::vector<Value>& sources,
                      const std::vector<Value>& output_gradients, UnconnectedGradients unconnected,
                      std::vector<std::optional<Value>>* out, std::vector<std::optional<Rows>>* rows) {
  if (used_ && !options_.persistent) {
    return errors::FailedPrecondition(
        "a non-persistent GradientTape can compute gradients only once: make it persistent to call gradient "
        "more than once");
  }
  if (targets.empty()) return errors::InvalidArgument("gradient needs at least one target");
  if (!output_gradients.empty() && output_gradients.size() != targets.size()) {
    return errors::InvalidArgument("output_gradients has ", output_gradients.size(), " tensors for ", targets.size(),
                                   " targets");
  }
  bool symbolic = false;
  for (const Value& t : targets) symbolic = symbolic || t.is_symbolic();
  std::vector<std::optional<Rows>> row_grads;
  Status s = symbolic ? SymbolicGradient(targets, sources, output_gradients, unconnected, out, rows ? &row_grads : nullptr)
                      : EagerGradient(targets, sources, output_gradients, unconnected, out, rows ? &row_grads : nullptr);
  if (s.ok() && rows) {
    row_grads.resize(out->size());
    *rows = std::move(row_grads);
  }
  if (s.ok() && !options_.persistent) {
    used_ = true;
    entries_.clear();  // the recorded tensors are not needed any more
    producer_.clear();
  }
  return s;
}

Status Tape::SymbolicGradient(const std::vector<Value>& targets, const std::vector<Value>& sources,
                              const std::vector<Value>& output_gradients, UnconnectedGradients unconnected,
                              std::vector<std::optional<Value>>* out, std::vector<std::optional<Rows>>* rows) {
  Trace* trace = ctx_->current_trace();
  if (trace == nullptr) {
    return errors::FailedPrecondition("a symbolic target can be differentiated only inside the function being traced");
  }
  std::vector<Output> ys, xs, dys;
  for (size_t i = 0; i < targets.size(); ++i) {
    Output o;
    GRAFT_RETURN_IF_ERROR(trace->Capture(targets[i], &o).WithContext(StrCat("target ", i)));
    ys.push_back(o);
  }
  for (size_t i = 0; i < sources.size(); ++i) {
    Output o;
    GRAFT_RETURN_IF_ERROR(trace->Capture(sources[i], &o).WithContext(StrCat("source ", i)));
    xs.push_back(o);
  }
  for (size_t i = 0; i < output_gradients.size(); ++i) {
    Output o;
    GRAFT_RETURN_IF_ERROR(trace->Capture(output_gradients[i], &o).WithContext(StrCat("output gradient ", i)));
    dys.push_back(o);
  }
  GradientsOptions options;
  options.grad_ys = std::move(dys);
  std::vector<std::optional<Output>> grads;
  std::vector<std::optional<IndexedSlicesGrad>> grad_rows;
  GRAFT_RETURN_IF_ERROR(AddGradients(trace->graph(), ys, xs, options, &grads, rows ? &grad_rows : nullptr));
  out->clear();
  if (rows) rows->assign(grads.size(), std::nullopt);
  for (size_t i = 0; i < grads.size(); ++i) {
    if (grads[i]) {
      out->push_back(Value::Symbolic(*grads[i], trace->shared_graph()));
      if (rows && grad_rows[i]) {
        (*rows)[i] = Rows{Value::Symbolic(grad_rows[i]->indices, trace->shared_graph()),
                          Value::Symbolic(grad_rows[i]->dense_shape, trace->shared_graph())};
      }
      continue;
    }
    if (unconnected == UnconnectedGradients::kNone) {
      out->push_back(std::nullopt);
      continue;
    }
    Value like = sources[i];
    std::vector<Value> r;
    if (like.dtype() == DType::kResource) {
      const ResourceHandle* h = HandleOf(like);
      if (h == nullptr) return errors::Unimplemented("zeros for the unconnected variable source ", i);
      OpCall read{"ReadVariableOp", "", {{{like}, false}}, {{"dtype", AttrValue::Type(h->dtype)}}, ""};
      GRAFT_RETURN_IF_ERROR(ctx_->Execute(read, &r));
      like = r[0];
    }
    OpCall zeros{"ZerosLike", "", {{{like}, false}}, {}, ""};
    GRAFT_RETURN_IF_ERROR(ctx_->Execute(zeros, &r));
    out->push_back(r[0]);
  }
  return Status::Ok();
}

Status Tape::EagerGradient(const std::vector<Value>& targets, const std::vector<Value>& sources,
                           const std::vector<Value>& output_gradients, UnconnectedGradients unconnected,
                           std::vector<std::optional<Value>>* out, std::vector<std::optional<Rows>>* rows) {
  for (size_t i = 0; i < sources.size(); ++i) {
    if (sources[i].is_symbolic()) return errors::InvalidArgument("source ", i, " is symbolic but the targets are not");
    if (!sources[i].tensor.valid()) return errors::InvalidArgument("source ", i, " is an empty value");
  }
  for (size_t i = 0; i < output_gradients.size(); ++i) {
    if (output_gradients[i].is_symbolic() || !output_gradients[i].tensor.valid()) {
      return errors::InvalidArgument("output gradient ", i, " is not a concrete tensor");
    }
    if (BaseDType(output_gradients[i].dtype()) != BaseDType(targets[i].dtype())) {
      return errors::InvalidArgument("output gradient ", i, " is ", DTypeName(output_gradients[i].dtype()),
                                     " but target ", i, " is ", DTypeName(targets[i].dtype()));
    }
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    if (!targets[i].tensor.valid()) return errors::InvalidArgument("target ", i, " is an empty value");
  }
  if (ctx_ == nullptr) {  // a tape of any context that recorded nothing
    if (unconnected == UnconnectedGradients::kZero) {
      return errors::FailedPrecondition("the tape recorded nothing, so it has no context to make zeros in");
    }
    out->assign(sources.size(), std::nullopt);
    return Status::Ok();
  }

  // The recorded ops the targets depend on, in recording order (a topological order).
  std::set<size_t> needed;
  std::vector<uint64_t> stack;
  for (const Value& t : targets) stack.push_back(Resolve(t));
  while (!stack.empty()) {
    auto it = producer_.find(stack.back());
    stack.pop_back();
    if (it == producer_.end() || !needed.insert(it->second.first).second) continue;
    for (const Value& in : entries_[it->second.first].inputs) stack.push_back(Key(in));
  }

  // Replay them as a graph: tensors from outside become Placeholders (fed with the recorded
  // values) when gradients can flow through them, Consts otherwise (so that gradient
  // functions see constant axes, shapes and indices).
  // Shared, so that a gradient function registered by a binding can hold the graph it is
  // given (graft_graph_share) while it adds ops to it.
  auto scratch = std::make_shared<Graph>();
  Graph& g = *scratch;
  std::unordered_map<uint64_t, Output> tensor_of;
  std::map<std::pair<const Node*, int>, Value> value_of;
  auto outside = [&](const Value& v, bool force_placeholder, Output* o) -> Status {
    const uint64_t k = Resolve(v);
    if (auto it = tensor_of.find(k); it != tensor_of.end()) {
      *o = it->second;
      return Status::Ok();
    }
    NodeSpec spec;
    const DType dt = v.tensor.dtype();
    if (force_placeholder || IsDifferentiableDType(dt) || watched_.count(k) != 0) {
      spec.type = "Placeholder";
      spec.attrs["dtype"] = AttrValue::Type(dt);
      spec.attrs["shape"] = AttrValue::Shape(v.tensor.shape());
    } else {
      spec.type = "Const";
      spec.attrs["dtype"] = AttrValue::Type(dt);
      spec.attrs["value"] = AttrValue::TensorValue(v.tensor);
    }
    Node* n = nullptr;
    GRAFT_RETURN_IF_ERROR(g.AddNode(std::move(spec), &n));
    *o = Output{n, 0};
    tensor_of[k] = *o;
    value_of[{n, 0}] = v;
    return Status::Ok();
  };
  for (size_t index : needed) {
    const Entry& e = entries_[index];
    NodeSpec spec;
    spec.type = e.type;
    spec.attrs = e.attrs;
    size_t k = 0;
    for (const auto& [n, is_list] : e.args) {
      NodeSpec::InputArg arg;
      arg.is_list = is_list;
      for (size_t i = 0; i < n; ++i, ++k) {
        const Value& in = e.inputs[k];
        auto p = producer_.find(Key(in));
        Output o;
        if (p != producer_.end() && needed.count(p->second.first) != 0 && tensor_of.count(Key(in)) != 0) {
          o = tensor_of[Key(in)];
        } else {
          GRAFT_RETURN_IF_ERROR(outside(in, false, &o));
        }
        arg.tensors.push_back(o);
      }
      spec.inputs.push_back(std::move(arg));
    }
    Node* node = nullptr;
    if (Status s = g.AddNode(std::move(spec), &node); !s.ok()) {
      return s.WithContext(StrCat("replaying the recorded ", e.type, " op"));
    }
    for (size_t i = 0; i < e.outputs.size(); ++i) {
      // The recorded shapes are exact: gradient functions that need static shapes get them
      // (a variable read, for one, has no static shape of its own).
      if (e.outputs[i].tensor.dtype() != DType::kResource) {
        (void)g.SetShape(Output{node, static_cast<int>(i)}, e.outputs[i].tensor.shape());
      }
      const uint64_t key = Key(e.outputs[i]);
      value_of[{node, static_cast<int>(i)}] = e.outputs[i];
      if (auto p = producer_.find(key); p != producer_.end() && p->second.first == index) {
        tensor_of[key] = Output{node, static_cast<int>(i)};
      }
    }
  }
  std::vector<Output> ys, xs, dys;
  for (const Value& t : targets) {
    Output o;
    GRAFT_RETURN_IF_ERROR(outside(t, true, &o));
    ys.push_back(o);
  }
  for (const Value& s : sources) {
    Output o;
    GRAFT_RETURN_IF_ERROR(outside(s, true, &o));
    xs.push_back(o);
  }
  for (const Value& d : output_gradients) {
    NodeSpec spec;
    spec.type = "Placeholder";
    spec.attrs["dtype"] = AttrValue::Type(d.tensor.dtype());
    spec.attrs["shape"] = AttrValue::Shape(d.tensor.shape());
    Node* n = nullptr;
    GRAFT_RETURN_IF_ERROR(g.AddNode(std::move(spec), &n));
    dys.push_back(Output{n, 0});
    value_of[{n, 0}] = d;
  }
  const int64_t first_gradient_node = g.version() + 1;
  GradientsOptions options;
  options.grad_ys = dys;
  std::vector<std::optional<Output>> grads;
  std::vector<std::optional<IndexedSlicesGrad>> grad_rows;
  GRAFT_RETURN_IF_ERROR(AddGradients(g, ys, xs, options, &grads, rows ? &grad_rows : nullptr));

  // Run the gradient ops that the results need, eagerly and in creation order, with this
  // tape paused (an enclosing tape records them).
  std::set<const Node*> run;
  std::vector<const Node*> todo;
  for (const auto& gr : grads) {
    if (gr) todo.push_back(gr->node);
  }
  for (const auto& r : grad_rows) {
    if (r) {
      todo.push_back(r->indices.node);
      todo.push_back(r->dense_shape.node);
    }
  }
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    if (n->id() < first_gradient_node || !run.insert(n).second) continue;
    for (const Output& in : n->inputs()) todo.push_back(in.node);
  }
  std::vector<const Node*> order(run.begin(), run.end());
  std::sort(order.begin(), order.end(), [](const Node* a, const Node* b) { return a->id() < b->id(); });
  auto it = std::find(Tapes().begin(), Tapes().end(), this);
  const bool on_stack = it != Tapes().end();
  size_t position = on_stack ? static_cast<size_t>(it - Tapes().begin()) : 0;
  if (on_stack) Tapes().erase(it);
  Status s;
  for (const Node* n : order) {
    std::vector<Value> ins;
    for (const Output& in : n->inputs()) {
      auto v = value_of.find({in.node, in.index});
      if (v == value_of.end()) {
        s = errors::Internal("gradient op '", n->name(), "' reads '", Graph::TensorName(in), "', which has no value");
        break;
      }
      ins.push_back(v->second);
    }
    if (!s.ok()) break;
    std::vector<Value> outs;
    s = ExecuteNode(*ctx_, *n, ins, &outs);
    if (!s.ok()) {
      s = s.WithContext(StrCat("computing the gradient (op '", n->name(), "')"));
      break;
    }
    for (size_t i = 0; i < outs.size(); ++i) value_of[{n, static_cast<int>(i)}] = std::move(outs[i]);
  }
  if (on_stack) Tapes().insert(Tapes().begin() + static_cast<std::ptrdiff_t>(position), this);
  GRAFT_RETURN_IF_ERROR(s);

  out->clear();
  if (rows) rows->assign(grads.size(), std::nullopt);
  // A tensor of the tape's graph: computed above, or one of the recorded values it stands for.
  auto value = [&](const Output& o) -> Status {
    if (value_of.count({o.node, o.index}) == 0) {
      return errors::Internal("the gradient's tensor '", Graph::TensorName(o), "' has no value");
    }
    return Status::Ok();
  };
  for (size_t i = 0; i < grads.size(); ++i) {
    // A source the tape does not track (neither watched nor recorded) gets no gradient.
    if (grads[i] && tracked_.count(Resolve(sources[i])) != 0) {
      GRAFT_RETURN_IF_ERROR(value(*grads[i]));
      out->push_back(value_of[{grads[i]->node, grads[i]->index}]);
      if (rows && grad_rows[i]) {
        GRAFT_RETURN_IF_ERROR(value(grad_rows[i]->indices));
        GRAFT_RETURN_IF_ERROR(value(grad_rows[i]->dense_shape));
        (*rows)[i] = Rows{value_of[{grad_rows[i]->indices.node, grad_rows[i]->indices.index}],
                          value_of[{grad_rows[i]->dense_shape.node, grad_rows[i]->dense_shape.index}]};
      }
      continue;
    }
    if (unconnected == UnconnectedGradients::kNone) {
      out->push_back(std::nullopt);
      continue;
    }
    Value like = sources[i];
    std::vector<Value> r;
    if (const ResourceHandle* h = HandleOf(like)) {
      OpCall read{"ReadVariableOp", "", {{{like}, false}}, {{"dtype", AttrValue::Type(h->dtype)}}, ""};
      GRAFT_RETURN_IF_ERROR(ctx_->ExecuteEager(read, &r));
      like = r[0];
    }
    OpCall zeros{"ZerosLike", "", {{{like}, false}}, {}, ""};
    GRAFT_RETURN_IF_ERROR(ctx_->ExecuteEager(zeros, &r));
    out->push_back(r[0]);
  }
  return Status::Ok();
}

}  // namespace graft::eager
