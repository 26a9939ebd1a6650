// AddGradients: see gradient_builder.h.
#include "core/gradients/gradient_builder.h"

#include <deque>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/gradients/grad_ops.h"
#include "core/gradients/gradient_context.h"
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

  Status Run(const std::vector<Output>& ys, const std::vector<Output>& xs, std::vector<std::optional<Output>>* out) {
    MarkBetween(ys, xs);
    // Seed the ys.
    for (size_t i = 0; i < ys.size(); ++i) {
      Output seed = options_.grad_ys.empty() ? ops_.OnesLike(ys[i]) : options_.grad_ys[i];
      GRAFT_RETURN_IF_ERROR(ops_.status());
      grads_[{ys[i].node, ys[i].index}].push_back(seed);
    }
    GRAFT_RETURN_IF_ERROR(Backprop());
    out->clear();
    for (const Output& x : xs) {
      auto it = grads_.find({x.node, x.index});
      std::optional<Output> g;
      if (it != grads_.end() && !it->second.empty()) {
        g = ops_.AddN(it->second);
        it->second = {*g};  // a second x naming the same tensor reuses the sum
      } else if (options_.unconnected == UnconnectedGradients::kZero) {
        g = ops_.ZerosLike(x);
      }
      GRAFT_RETURN_IF_ERROR(ops_.status());
      out->push_back(g);
    }
    return Status::Ok();
  }

 private:
  // between_: the ops reached forward from xs through differentiable tensors that also lead to
  // a y; pending_: for each, how many of its outputs' uses by between ops are still to visit.
  void MarkBetween(const std::vector<Output>& ys, const std::vector<Output>& xs) {
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
    for (Node* n : between_) {
      for (const Output& in : n->inputs()) {
        if (between_.count(in.node) != 0) ++pending_[in.node];
      }
    }
    for (const Output& s : options_.stop_gradients) stop_.insert(s.node);
  }

  bool IsStop(Node* n) const {
    if (stop_.count(n) != 0) return true;
    for (const Output& in : n->inputs()) {
      if (between_.count(in.node) != 0) return false;
    }
    return true;
  }

  Status Backprop() {
    std::deque<Node*> ready;
    // In creation order, so that the result does not depend on hashing.
    std::vector<Node*> order(between_.begin(), between_.end());
    std::sort(order.begin(), order.end(), [](Node* a, Node* b) { return a->id() < b->id(); });
    for (Node* n : order) {
      if (pending_[n] == 0) ready.push_back(n);
    }
    size_t visited = 0;
    while (!ready.empty()) {
      Node* op = ready.front();
      ready.pop_front();
      ++visited;
      GRAFT_RETURN_IF_ERROR(Visit(op));
      for (const Output& in : op->inputs()) {
        if (between_.count(in.node) == 0) continue;
        if (--pending_[in.node] == 0) ready.push_back(in.node);
      }
    }
    if (visited != between_.size()) {
      for (Node* n : order) {
        if (pending_[n] != 0) {
          return errors::Unimplemented("cannot differentiate through the cycle at op '", n->name(), "' of type '",
                                       n->type(), "' (TensorFlow 1 loops are not differentiable yet)");
        }
      }
    }
    return Status::Ok();
  }

  Status Visit(Node* op) {
    const int nout = op->num_outputs();
    std::vector<std::optional<Output>> out_grads(static_cast<size_t>(nout));
    bool any = false;
    for (int i = 0; i < nout; ++i) {
      auto it = grads_.find({op, i});
      if (it == grads_.end() || it->second.empty()) continue;
      out_grads[static_cast<size_t>(i)] = ops_.AddN(it->second);
      GRAFT_RETURN_IF_ERROR(ops_.status());
      any = true;
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
    for (int i = 0; i < op->num_inputs(); ++i) {
      const auto& g = ctx.grad_inputs[static_cast<size_t>(i)];
      if (!g) continue;
      const Output in = op->input(i);
      if (g->node == nullptr || g->node->graph() != &graph_ || g->index < 0 || g->index >= g->node->num_outputs()) {
        return errors::Internal("the gradient function of op '", op->name(), "' of type '", op->type(),
                                "' gave input ", i, " a tensor that is not in the graph");
      }
      if (!IsDifferentiableDType(in.node->output_type(in.index))) continue;
      grads_[{in.node, in.index}].push_back(*g);
    }
    return Status::Ok();
  }

  Graph& graph_;
  const GradientsOptions& options_;
  GradOps ops_;
  std::unordered_set<Node*> between_;
  std::unordered_map<Node*, int> pending_;
  std::unordered_set<Node*> stop_;
  std::map<TensorKey, std::vector<Output>> grads_;
};

}  // namespace

Status AddGradients(Graph& graph, const std::vector<Output>& ys, const std::vector<Output>& xs,
                    const GradientsOptions& options, std::vector<std::optional<Output>>* out) {
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
  s = builder.Run(ys, xs, &result);
  Status popped = graph.PopNameScope();
  if (s.ok()) s = popped;
  if (!s.ok()) {
    graph.RollbackTo(mark);
    return s;
  }
  *out = std::move(result);
  return Status::Ok();
}

}  // namespace graft
