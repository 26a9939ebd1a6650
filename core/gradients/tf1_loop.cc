// TensorFlow 1 loops as functional While loops: see tf1_loop.h.
#include "core/gradients/tf1_loop.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_set>
#include <utility>

#include "core/gradients/function_gradients.h"

namespace graft {
namespace {

bool IsType(const Node* n, std::string_view type) {
  const std::string& t = n->type();
  return t == type || (t.size() == type.size() + 3 && t.compare(0, 3, "Ref") == 0 && t.compare(3, std::string::npos, type) == 0);
}

using TensorKey = std::pair<const Node*, int>;

std::string Where(const Node* n) { return StrCat(n->type(), " op '", n->name(), "'"); }

// A function name from a frame name ("while/while_context" -> "while_while_context").
std::string Sanitize(const std::string& s) {
  std::string out;
  for (char c : s) out.push_back((std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_');
  return out.empty() ? std::string("loop") : out;
}

// Copies the ops that compute targets into fg: a tensor in `mapped` is the given value of fg
// (a function argument) and stops the walk; control inputs on the ops that mapped tensors
// come from are dropped. Every op reached must be in members and not be one of `forbidden`
// (the loop's own control-flow ops that are not mapped).
class LoopCopier {
 public:
  LoopCopier(Graph& fg, std::map<TensorKey, Output> mapped, const std::unordered_set<const Node*>& members,
             const std::string& frame)
      : fg_(fg), mapped_(std::move(mapped)), members_(members), frame_(frame) {
    for (const auto& [k, v] : mapped_) mapped_nodes_.insert(k.first);
  }

  Status Copy(const std::vector<Output>& targets, std::vector<Output>* out) {
    std::vector<const Node*> stack;
    std::unordered_set<const Node*> needed;
    auto want = [&](const Node* n) -> Status {
      if (mapped_nodes_.count(n) != 0 || needed.count(n) != 0) return Status::Ok();
      if (members_.count(n) == 0) {
        return errors::InvalidArgument(Where(n), " is used inside loop frame '", frame_,
                                       "' without an Enter op: not a well-formed loop");
      }
      needed.insert(n);
      stack.push_back(n);
      return Status::Ok();
    };
    auto want_tensor = [&](const Output& t) -> Status {
      if (t.node == nullptr) return errors::InvalidArgument("a loop op has an unconnected input");
      if (mapped_.count({t.node, t.index}) != 0) return Status::Ok();
      if (mapped_nodes_.count(t.node) != 0) {
        return errors::InvalidArgument(Where(t.node), " of loop frame '", frame_, "': output ", t.index,
                                       " is used where the loop does not allow it: not a well-formed loop");
      }
      return want(t.node);
    };
    for (const Output& t : targets) GRAFT_RETURN_IF_ERROR(want_tensor(t));
    while (!stack.empty()) {
      const Node* n = stack.back();
      stack.pop_back();
      if (forbidden_.count(n) != 0) {
        return errors::InvalidArgument(Where(n), " of loop frame '", frame_,
                                       "' is reached where the loop's condition or body should be: "
                                       "not a well-formed loop");
      }
      for (const Output& in : n->inputs()) GRAFT_RETURN_IF_ERROR(want_tensor(in));
      for (const Node* c : n->control_inputs()) GRAFT_RETURN_IF_ERROR(want(c));
    }
    std::vector<const Node*> order(needed.begin(), needed.end());
    std::sort(order.begin(), order.end(), [](const Node* a, const Node* b) { return a->id() < b->id(); });
    struct Pending {
      Node* node;
      int input;
      Output producer;
    };
    std::vector<Pending> pending;
    for (const Node* n : order) {
      NodeSpec spec;
      spec.type = n->type();
      spec.name = n->name() + "/";
      spec.flat_inputs = true;
      spec.skip_control_contexts = true;
      spec.device = n->device();
      spec.inputs.emplace_back();
      std::vector<std::pair<int, Output>> later;
      for (int i = 0; i < n->num_inputs(); ++i) {
        const Output& in = n->input(i);
        auto m = mapped_.find({in.node, in.index});
        if (m != mapped_.end()) {
          spec.inputs[0].tensors.push_back(m->second);
        } else if (auto c = copied_.find(in.node); c != copied_.end()) {
          spec.inputs[0].tensors.push_back(Output{c->second, in.index});
        } else {  // a nested loop's back edge: connected once its producer is copied
          spec.inputs[0].tensors.push_back(Output{nullptr, i});
          spec.pending_types[i] = n->input_type(i);
          later.emplace_back(i, in);
        }
      }
      for (const Node* c : n->control_inputs()) {
        if (auto it = copied_.find(c); it != copied_.end()) spec.control_inputs.push_back(it->second);
      }
      for (const auto& [k, v] : n->attrs()) {
        if (k != "_class") spec.attrs[k] = v;
      }
      Node* copy = nullptr;
      GRAFT_RETURN_IF_ERROR(fg_.AddNode(std::move(spec), &copy).WithContext(StrCat("copying ", Where(n))));
      copied_[n] = copy;
      for (const auto& [i, in] : later) pending.push_back(Pending{copy, i, in});
    }
    for (const Pending& p : pending) {
      auto c = copied_.find(p.producer.node);
      if (c == copied_.end()) return errors::Internal("the producer of a loop back edge was not copied");
      GRAFT_RETURN_IF_ERROR(fg_.ResolvePending(p.node, p.input, Output{c->second, p.producer.index}));
    }
    out->clear();
    for (const Output& t : targets) {
      auto m = mapped_.find({t.node, t.index});
      out->push_back(m != mapped_.end() ? m->second : Output{copied_.at(t.node), t.index});
    }
    return Status::Ok();
  }

  void Forbid(const Node* n) { forbidden_.insert(n); }

 private:
  Graph& fg_;
  std::map<TensorKey, Output> mapped_;
  std::unordered_set<const Node*> mapped_nodes_;
  const std::unordered_set<const Node*>& members_;
  std::unordered_set<const Node*> forbidden_;
  std::unordered_map<const Node*, Node*> copied_;
  const std::string& frame_;
};

}  // namespace

Status Tf1Frames::Build(const Graph& graph) {
  std::unordered_map<const Node*, int> out_frame;
  std::unordered_map<std::string, int> by_name;
  for (int64_t i = 0; i < graph.num_nodes(); ++i) {
    const Node* n = graph.NodeAt(i);
    int f = -1;
    const bool merge = IsType(n, "Merge");
    for (const Output& in : n->inputs()) {
      if (in.node == nullptr || (merge && IsType(in.node, "NextIteration"))) continue;
      auto it = out_frame.find(in.node);
      if (it != out_frame.end()) {
        f = it->second;
        break;
      }
    }
    if (f < 0) {
      for (const Node* c : n->control_inputs()) {
        auto it = out_frame.find(c);
        if (it != out_frame.end()) {
          f = it->second;
          break;
        }
      }
    }
    if (f < 0) f = 0;
    frame_[n] = f;
    int out = f, inner = f;
    if (IsType(n, "Enter")) {
      const AttrValue* a = n->attr("frame_name");
      const std::string* name = a ? a->get<std::string>() : nullptr;
      if (name == nullptr || name->empty()) {
        return errors::InvalidArgument(Where(n), " has no frame_name: an Enter must name its frame");
      }
      auto [it, inserted] = by_name.emplace(*name, static_cast<int>(parent_.size()));
      if (inserted) {
        parent_.push_back(f);
        name_.push_back(*name);
      }
      out = inner = it->second;
    } else if (IsType(n, "Exit")) {
      out = f == 0 ? 0 : parent_[static_cast<size_t>(f)];
    }
    out_frame[n] = out;
    inner_[n] = inner;
  }
  return Status::Ok();
}

int Tf1Frames::inner_frame(const Node* n) const {
  auto it = inner_.find(n);
  return it == inner_.end() ? 0 : it->second;
}

int Tf1Frames::top_frame(int f) const {
  while (f > 0 && parent_[static_cast<size_t>(f)] != 0) f = parent_[static_cast<size_t>(f)];
  return f;
}

Status ExtractTf1Loop(Graph& graph, const Tf1Frames& frames, int frame, Tf1Loop* out) {
  const std::string& frame_name = frames.name(frame);
  std::unordered_set<const Node*> members;
  std::vector<Node*> enters, merges, conds, switches, next_iterations;
  for (int64_t i = 0; i < graph.num_nodes(); ++i) {
    Node* n = graph.NodeAt(i);
    const int f = frames.inner_frame(n);
    if (f == 0 || frames.top_frame(f) != frame) continue;
    members.insert(n);
    if (f != frame) continue;
    if (IsType(n, "Enter")) enters.push_back(n);
    if (IsType(n, "Merge")) merges.push_back(n);
    if (n->type() == "LoopCond") conds.push_back(n);
    if (IsType(n, "Switch")) switches.push_back(n);
    if (IsType(n, "NextIteration")) next_iterations.push_back(n);
  }
  if (conds.size() != 1) {
    return errors::InvalidArgument("loop frame '", frame_name, "' has ", conds.size(),
                                   " LoopCond ops (a well-formed loop has one)");
  }
  const Node* loop_cond = conds[0];

  Tf1Loop loop;
  loop.stateful = std::any_of(members.begin(), members.end(), [](const Node* n) { return n->def().is_stateful; });
  std::vector<const Node*> var_enters, var_switches;
  std::vector<Output> var_values;  // what each NextIteration takes back
  std::unordered_set<const Node*> used_enters;
  for (Node* m : merges) {
    const Node* enter = nullptr;
    const Node* next = nullptr;
    for (const Output& in : m->inputs()) {
      if (in.node != nullptr && IsType(in.node, "NextIteration")) next = in.node;
      if (in.node != nullptr && IsType(in.node, "Enter") && frames.inner_frame(in.node) == frame) enter = in.node;
    }
    if (next == nullptr) continue;  // a cond's Merge inside the body
    if (enter == nullptr || m->num_inputs() != 2) {
      return errors::InvalidArgument(Where(m), " of loop frame '", frame_name,
                                     "' does not merge an Enter with a NextIteration: not a well-formed loop");
    }
    const Node* sw = nullptr;
    for (const InputUse& use : m->consumers(0)) {
      if (IsType(use.node, "Switch") && use.index == 0 && use.node->input(1).node == loop_cond) sw = use.node;
    }
    if (sw == nullptr) {
      return errors::InvalidArgument(Where(m), " of loop frame '", frame_name,
                                     "' has no Switch on the LoopCond: not a well-formed loop");
    }
    Node* exit = nullptr;
    for (const InputUse& use : sw->consumers(0)) {
      if (IsType(use.node, "Exit")) exit = use.node;
    }
    used_enters.insert(enter);
    var_enters.push_back(enter);
    var_switches.push_back(sw);
    var_values.push_back(next->input(0));
    loop.inputs.push_back(enter->input(0));
    loop.exits.push_back(exit);
  }
  if (var_enters.empty()) {
    return errors::InvalidArgument("loop frame '", frame_name, "' has no loop variable (no Merge of an Enter and a ",
                                   "NextIteration)");
  }
  std::vector<const Node*> invariants;
  for (const Node* e : enters) {
    if (used_enters.count(e) != 0) continue;
    invariants.push_back(e);
    loop.inputs.push_back(e->input(0));
  }
  const std::string base = Sanitize(frame_name);

  // The condition: (vars..., invariants...) -> LoopCond's input.
  auto build = [&](bool body, std::string* name) -> Status {
    auto fg = NewFunctionGraph(graph);
    const size_t lib = fg->functions().size();
    std::vector<Output> args;
    std::map<TensorKey, Output> mapped;
    for (size_t i = 0; i < var_enters.size(); ++i) {
      Output a;
      GRAFT_RETURN_IF_ERROR(AddPlaceholder(*fg, StrCat("loop_var_", i),
                                           BaseDType(var_enters[i]->output_type(0)), PartialShape::Unknown(), &a));
      args.push_back(a);
      if (body) {
        mapped[{var_switches[i], 1}] = a;
      } else {
        mapped[{var_switches[i]->input(0).node, 0}] = a;  // the Merge's value
      }
    }
    for (size_t i = 0; i < invariants.size(); ++i) {
      Output a;
      GRAFT_RETURN_IF_ERROR(AddPlaceholder(*fg, StrCat("loop_invariant_", i),
                                           BaseDType(invariants[i]->output_type(0)), PartialShape::Unknown(), &a));
      args.push_back(a);
      mapped[{invariants[i], 0}] = a;
    }
    LoopCopier copier(*fg, std::move(mapped), members, frame_name);
    for (const Node* n : var_enters) copier.Forbid(n);
    for (const Node* n : var_switches) copier.Forbid(n);
    copier.Forbid(loop_cond);
    if (body) {
      for (const Node* sw : var_switches) copier.Forbid(sw->input(0).node);
    }
    std::vector<Output> rets;
    GRAFT_RETURN_IF_ERROR(copier.Copy(body ? var_values : std::vector<Output>{loop_cond->input(0)}, &rets));
    if (body) rets.insert(rets.end(), args.begin() + static_cast<std::ptrdiff_t>(var_enters.size()), args.end());
    *name = UniqueFunctionName(graph, StrCat(base, body ? "_body" : "_cond"));
    return AddGraphAsFunction(graph, *fg, lib, *name, args, rets);
  };
  GRAFT_RETURN_IF_ERROR(build(false, &loop.cond).WithContext(StrCat("the condition of loop frame '", frame_name, "'")));
  GRAFT_RETURN_IF_ERROR(build(true, &loop.body).WithContext(StrCat("the body of loop frame '", frame_name, "'")));
  *out = std::move(loop);
  return Status::Ok();
}

}  // namespace graft
