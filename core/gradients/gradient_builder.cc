// AddGradients: see gradient_builder.h.
#include "core/gradients/gradient_builder.h"

#include <deque>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/gradients/function_gradients.h"
#include "core/gradients/grad_ops.h"
#include "core/gradients/gradient_context.h"
#include "core/gradients/tf1_loop.h"
#include "core/op_registry.h"

namespace graft {
namespace {

using TensorKey = std::pair<Node*, int>;

Status CheckTensor(const Graph& graph, const Output& t, std::string_view what, size_t i) {
  if (t.node == nullptr) return errors::InvalidArgument(what, "[", i, "] has no op");
  if (t.node->graph() != &graph) {
    return errors::InvalidArgument(what, "[", i, "] (op '", t.node->name(), "') is not in this graph");
  }
  if (t.index < 0 || t.index >= t.node->num_outputs()) {
    return errors::InvalidArgument(what, "[", i, "]: op '", t.node->name(), "' has no output ", t.index);
  }
  return Status::Ok();
}

// The name a gradient is registered under for node: its override, or its type.
std::string GradientName(const Node* node) {
  if (const AttrValue* a = node->attr("_gradient_op_type")) {
    if (const std::string* s = a->get<std::string>(); s != nullptr && !s->empty()) return *s;
  }
  return node->type();
}

class Builder {
 public:
  Builder(Graph& g, const GradientsOptions& o) : graph_(g), options_(o), ops_(g) {}

  Status Run(const std::vector<Output>& ys, const std::vector<Output>& xs, std::vector<std::optional<Output>>* out,
             std::vector<std::optional<IndexedSlicesGrad>>* rows_out) {
    GRAFT_RETURN_IF_ERROR(MarkBetween(ys, xs));
    // Seed the ys.
    for (size_t i = 0; i < ys.size(); ++i) {
      Output seed = options_.grad_ys.empty() ? ops_.OnesLike(ys[i]) : options_.grad_ys[i];
      GRAFT_RETURN_IF_ERROR(ops_.status());
      grads_[{ys[i].node, ys[i].index}].push_back(seed);
    }
    GRAFT_RETURN_IF_ERROR(Backprop());
    out->clear();
    if (rows_out) rows_out->clear();
    for (const Output& x : xs) {
      const TensorKey key{x.node, x.index};
      auto rows = sparse_.find(key);
      auto dense = grads_.find(key);
      if (rows_out && rows != sparse_.end() && !rows->second.empty() && (dense == grads_.end() || dense->second.empty())) {
        // Only rows reach x: they stay rows, concatenated (a second x naming it reuses them).
        IndexedSlicesGrad r = ConcatRows(rows->second);
        GRAFT_RETURN_IF_ERROR(ops_.status());
        rows->second = {r};
        out->push_back(r.values);
        rows_out->push_back(r);
        continue;
      }
      std::optional<Output> g;
      GRAFT_RETURN_IF_ERROR(Sum(key, &g));
      if (g) {
        grads_[key] = {*g};  // a second x naming the same tensor reuses the sum
        sparse_.erase(key);
      } else if (options_.unconnected == UnconnectedGradients::kZero) {
        g = ops_.ZerosLike(x);
      }
      GRAFT_RETURN_IF_ERROR(ops_.status());
      out->push_back(g);
      if (rows_out) rows_out->push_back(std::nullopt);
    }
    return Status::Ok();
  }

 private:
  // between_: the ops reached forward from xs through differentiable tensors that also lead to
  // a y.
  Status MarkBetween(const std::vector<Output>& ys, const std::vector<Output>& xs) {
    std::unordered_set<Node*> reached;
    std::deque<Node*> queue;
    for (const Output& x : xs) queue.push_back(x.node);
    while (!queue.empty()) {
      Node* n = queue.front();
      queue.pop_front();
      if (!reached.insert(n).second) continue;
      for (int o = 0; o < n->num_outputs(); ++o) {
        if (!IsDifferentiableDType(n->output_type(o))) continue;
        for (const InputUse& use : n->consumers(o)) queue.push_back(use.node);
      }
    }
    for (const Output& y : ys) queue.push_back(y.node);
    while (!queue.empty()) {
      Node* n = queue.front();
      queue.pop_front();
      if (reached.count(n) == 0 || !between_.insert(n).second) continue;
      for (const Output& in : n->inputs()) queue.push_back(in.node);
    }
    for (const Output& s : options_.stop_gradients) stop_.insert(s.node);
    // TensorFlow 1 loops: the ops of each top-level frame are one unit, differentiated at once.
    bool loops = false;
    for (Node* n : between_) loops = loops || n->type() == "Enter" || n->type() == "RefEnter";
    if (!loops) return Status::Ok();
    GRAFT_RETURN_IF_ERROR(frames_.Build(graph_));
    std::vector<Node*> order(between_.begin(), between_.end());
    std::sort(order.begin(), order.end(), [](Node* a, Node* b) { return a->id() < b->id(); });
    for (Node* n : order) {
      const int f = frames_.inner_frame(n);
      if (f == 0) continue;
      const int top = frames_.top_frame(f);
      auto [it, inserted] = loop_rep_.emplace(top, n);
      if (inserted) rep_loop_[n] = top;
      unit_of_[n] = it->second;
    }
    return Status::Ok();
  }

  // The gradient arriving at tensor key: the sum of the dense gradients and of the rows made
  // dense; empty when none arrives.
  Status Sum(const TensorKey& key, std::optional<Output>* out) {
    std::vector<Output> parts;
    if (auto it = grads_.find(key); it != grads_.end()) parts = it->second;
    if (auto it = sparse_.find(key); it != sparse_.end()) {
      for (const IndexedSlicesGrad& r : it->second) parts.push_back(DenseFromSlices(ops_, r));
    }
    out->reset();
    if (!parts.empty()) *out = ops_.AddN(parts);
    return ops_.status();
  }

  // Several sets of rows of one tensor as one: values and indices concatenated (indices as
  // int64 when their dtypes differ).
  IndexedSlicesGrad ConcatRows(const std::vector<IndexedSlicesGrad>& rows) {
    if (rows.size() == 1) return rows[0];
    bool mixed = false;
    for (const IndexedSlicesGrad& r : rows) {
      mixed = mixed || r.indices.node->output_type(r.indices.index) != rows[0].indices.node->output_type(rows[0].indices.index);
    }
    std::vector<Output> values, indices;
    for (const IndexedSlicesGrad& r : rows) {
      values.push_back(r.values);
      indices.push_back(mixed ? ops_.Cast(r.indices, DType::kInt64) : r.indices);
    }
    return {ops_.ListOp("ConcatV2", values, {ops_.Int32(0)}), ops_.ListOp("ConcatV2", indices, {ops_.Int32(0)}),
            rows[0].dense_shape};
  }

  // The unit n is visited in: itself, or the first op of its TensorFlow 1 loop.
  Node* Unit(Node* n) const {
    auto it = unit_of_.find(n);
    return it == unit_of_.end() ? n : it->second;
  }

  bool IsStop(Node* n) const {
    if (stop_.count(n) != 0) return true;
    for (const Output& in : n->inputs()) {
      if (between_.count(in.node) != 0) return false;
    }
    return true;
  }

  Status Backprop() {
    // A unit is ready once every unit that uses its outputs has been visited.
    std::unordered_map<Node*, int> pending;
    std::unordered_map<Node*, std::vector<Node*>> members;
    std::vector<Node*> order(between_.begin(), between_.end());
    std::sort(order.begin(), order.end(), [](Node* a, Node* b) { return a->id() < b->id(); });
    std::vector<Node*> units;
    for (Node* n : order) {
      Node* u = Unit(n);
      auto& m = members[u];
      if (m.empty()) units.push_back(u);
      m.push_back(n);
      for (const Output& in : n->inputs()) {
        if (between_.count(in.node) != 0 && Unit(in.node) != u) ++pending[Unit(in.node)];
      }
    }
    // In creation order, so that the result does not depend on hashing.
    std::deque<Node*> ready;
    for (Node* u : units) {
      if (pending[u] == 0) ready.push_back(u);
    }
    size_t visited = 0;
    while (!ready.empty()) {
      Node* u = ready.front();
      ready.pop_front();
      ++visited;
      auto loop = rep_loop_.find(u);
      GRAFT_RETURN_IF_ERROR(loop != rep_loop_.end() ? VisitLoop(loop->second) : Visit(u));
      for (Node* n : members[u]) {
        for (const Output& in : n->inputs()) {
          if (between_.count(in.node) == 0 || Unit(in.node) == u) continue;
          if (--pending[Unit(in.node)] == 0) ready.push_back(Unit(in.node));
        }
      }
    }
    if (visited != units.size()) {
      for (Node* u : units) {
        if (pending[u] != 0) {
          return errors::InvalidArgument("cannot differentiate through the cycle at op '", u->name(), "' of type '",
                                         u->type(),
                                         "': only the cycles of TensorFlow 1 loops (Enter, Merge, Switch, LoopCond, "
                                         "NextIteration, Exit in one frame) are differentiable");
        }
      }
    }
    return Status::Ok();
  }

  // A TensorFlow 1 loop (top-level frame `frame`): its condition and body become functions,
  // and the gradient is that of the equivalent functional While (function_gradients.h).
  Status VisitLoop(int frame) {
    Tf1Loop loop;
    Status s = ExtractTf1Loop(graph_, frames_, frame, &loop);
    if (!s.ok()) return Status(s.code(), StrCat("the gradient of the loop in frame '", frames_.name(frame), "': ", s.message()));
    const size_t nvars = loop.exits.size();
    std::vector<std::optional<Output>> grads(loop.inputs.size());
    bool any = false;
    for (size_t i = 0; i < nvars; ++i) {
      Node* exit = loop.exits[i];
      if (exit == nullptr) continue;
      GRAFT_RETURN_IF_ERROR(Sum({exit, 0}, &grads[i]));
      any = any || grads[i].has_value();
    }
    GRAFT_RETURN_IF_ERROR(ops_.status());
    if (!any) return Status::Ok();
    std::string scope;
    GRAFT_RETURN_IF_ERROR(graph_.PushNameScope(StrCat(frames_.name(frame), "_grad"), &scope));
    for (size_t i = 0; i < grads.size(); ++i) {
      if (grads[i] || !CarriesFunctionGradient(loop.inputs[i].node->output_type(loop.inputs[i].index))) continue;
      Node* exit = i < nvars ? loop.exits[i] : nullptr;
      grads[i] = ops_.ZerosLike(exit != nullptr ? Output{exit, 0} : loop.inputs[i]);
    }
    WhileLoopSpec spec;
    spec.op_type = loop.stateful ? "While" : "StatelessWhile";
    spec.cond = loop.cond;
    spec.body = loop.body;
    spec.inputs = loop.inputs;
    std::vector<std::optional<Output>> dx;
    s = ops_.status();
    if (s.ok()) s = AddWhileGradient(graph_, spec, grads, &dx, options_.function_chain);
    if (!s.ok()) s = Status(s.code(), StrCat("the gradient of the loop in frame '", frames_.name(frame), "': ", s.message()));
    Status popped = graph_.PopNameScope();
    GRAFT_RETURN_IF_ERROR(s);
    GRAFT_RETURN_IF_ERROR(popped);
    for (size_t i = 0; i < loop.inputs.size(); ++i) {
      const Output in = loop.inputs[i];
      if (!dx[i] || between_.count(in.node) == 0 || !IsDifferentiableDType(in.node->output_type(in.index))) continue;
      grads_[{in.node, in.index}].push_back(*dx[i]);
    }
    return Status::Ok();
  }

  Status Visit(Node* op) {
    const int nout = op->num_outputs();
    std::vector<std::optional<Output>> out_grads(static_cast<size_t>(nout));
    bool any = false;
    for (int i = 0; i < nout; ++i) {
      GRAFT_RETURN_IF_ERROR(Sum({op, i}, &out_grads[static_cast<size_t>(i)]));
      any = any || out_grads[static_cast<size_t>(i)].has_value();
    }
    if (!any || IsStop(op)) return Status::Ok();

    const std::string name = GradientName(op);
    const GradientEntry* entry = GradientRegistry::Global().Find(name);
    if (entry == nullptr) {
      return errors::NotFound("no gradient is defined for op '", op->name(), "' of type '", op->type(), "'",
                              name == op->type() ? std::string() : StrCat(" (gradient override '", name, "')"));
    }
    if (entry->not_differentiable) return Status::Ok();

    std::string scope;
    GRAFT_RETURN_IF_ERROR(graph_.PushNameScope(StrCat(op->name(), "_grad"), &scope));
    for (int i = 0; i < nout; ++i) {
      auto& g = out_grads[static_cast<size_t>(i)];
      if (!g && IsDifferentiableDType(op->output_type(i))) g = ops_.ZerosLike(Output{op, i});
    }
    Status s = ops_.status();
    GradientContext ctx(graph_, op, std::move(out_grads));
    ctx.function_chain = options_.function_chain;
    if (s.ok()) {
      s = entry->fn(ctx);
      if (!s.ok()) {
        s = Status(s.code(), StrCat("the gradient of op '", op->name(), "' of type '", op->type(), "': ", s.message()));
      }
    }
    Status popped = graph_.PopNameScope();
    GRAFT_RETURN_IF_ERROR(s);
    GRAFT_RETURN_IF_ERROR(popped);
    if (ctx.grad_inputs.size() != static_cast<size_t>(op->num_inputs())) {
      return errors::Internal("the gradient function of op '", op->name(), "' of type '", op->type(), "' returned ",
                              ctx.grad_inputs.size(), " gradients for ", op->num_inputs(), " inputs");
    }
    auto in_graph = [&](const Output& t) {
      return t.node != nullptr && t.node->graph() == &graph_ && t.index >= 0 && t.index < t.node->num_outputs();
    };
    for (int i = 0; i < op->num_inputs(); ++i) {
      const auto& g = ctx.grad_inputs[static_cast<size_t>(i)];
      const auto& rows = ctx.sparse_grad_inputs[static_cast<size_t>(i)];
      if (!g && !rows) continue;
      const Output in = op->input(i);
      if (g ? !in_graph(*g) : !(in_graph(rows->values) && in_graph(rows->indices) && in_graph(rows->dense_shape))) {
        return errors::Internal("the gradient function of op '", op->name(), "' of type '", op->type(),
                                "' gave input ", i, " a tensor that is not in the graph");
      }
      if (!IsDifferentiableDType(in.node->output_type(in.index))) continue;
      if (g) {
        grads_[{in.node, in.index}].push_back(*g);
      } else {
        sparse_[{in.node, in.index}].push_back(*rows);
      }
    }
    return Status::Ok();
  }

  Graph& graph_;
  const GradientsOptions& options_;
  GradOps ops_;
  std::unordered_set<Node*> between_;
  Tf1Frames frames_;
  std::unordered_map<Node*, Node*> unit_of_;   // the ops of TensorFlow 1 loops -> their unit
  std::unordered_map<int, Node*> loop_rep_;    // top-level frame -> its unit
  std::unordered_map<Node*, int> rep_loop_;    // and back
  std::unordered_set<Node*> stop_;
  std::map<TensorKey, std::vector<Output>> grads_;
  std::map<TensorKey, std::vector<IndexedSlicesGrad>> sparse_;  // gradients given as rows
};

}  // namespace

Status AddGradients(Graph& graph, const std::vector<Output>& ys, const std::vector<Output>& xs,
                    const GradientsOptions& options, std::vector<std::optional<Output>>* out,
                    std::vector<std::optional<IndexedSlicesGrad>>* rows) {
  if (ys.empty()) return errors::InvalidArgument("gradients need at least one y");
  for (size_t i = 0; i < ys.size(); ++i) GRAFT_RETURN_IF_ERROR(CheckTensor(graph, ys[i], "ys", i));
  for (size_t i = 0; i < xs.size(); ++i) GRAFT_RETURN_IF_ERROR(CheckTensor(graph, xs[i], "xs", i));
  for (size_t i = 0; i < options.stop_gradients.size(); ++i) {
    GRAFT_RETURN_IF_ERROR(CheckTensor(graph, options.stop_gradients[i], "stop_gradients", i));
  }
  if (!options.grad_ys.empty()) {
    if (options.grad_ys.size() != ys.size()) {
      return errors::InvalidArgument("grad_ys has ", options.grad_ys.size(), " tensors for ", ys.size(), " ys");
    }
    for (size_t i = 0; i < ys.size(); ++i) {
      GRAFT_RETURN_IF_ERROR(CheckTensor(graph, options.grad_ys[i], "grad_ys", i));
      DType want = BaseDType(ys[i].node->output_type(ys[i].index));
      DType got = BaseDType(options.grad_ys[i].node->output_type(options.grad_ys[i].index));
      if (want != got) {
        return errors::InvalidArgument("grad_ys[", i, "] is ", DTypeName(got), " but ys[", i, "] (",
                                       Graph::TensorName(ys[i]), ") is ", DTypeName(want));
      }
    }
  }
  if (graph.finalized()) return errors::FailedPrecondition("the graph is finalized: gradients cannot be added");

  const Graph::MarkState mark = graph.Mark();
  std::string scope;
  Status s = graph.PushNameScope(options.scope.empty() ? "gradients" : options.scope, &scope);
  if (!s.ok()) return s;
  Builder builder(graph, options);
  std::vector<std::optional<Output>> result;
  std::vector<std::optional<IndexedSlicesGrad>> result_rows;
  s = builder.Run(ys, xs, &result, rows ? &result_rows : nullptr);
  Status popped = graph.PopNameScope();
  if (s.ok()) s = popped;
  if (!s.ok()) {
    graph.RollbackTo(mark);
    return s;
  }
  *out = std::move(result);
  if (rows) *rows = std::move(result_rows);
  return Status::Ok();
}

}  // namespace graft
