// FrameExecutor, the frame engine: runs graphs with TensorFlow 1 control flow (Switch,
// Merge, Enter, Exit, NextIteration, LoopCond). Values carry a tag — the frame instance and
// iteration they belong to — and may be dead (the untaken side of a Switch). A node with a
// dead input produces dead outputs without running; Merge forwards the first live input;
// Enter moves a value into a child frame, NextIteration to the next iteration, Exit back to
// the parent. The bookkeeping is shared under one lock; kernels compute outside it, on the
// calling thread and (for graphs of more than a few ops) the session pool's workers, so
// independent ops and, within parallel_iterations of each loop, iterations overlap.
//
// Memory stays bounded however long a loop runs: a value is dropped once its last reader in
// its iteration has run, and an iteration (with its bookkeeping) is dropped once nothing can
// arrive in it any more, as TensorFlow's executor does.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <limits>
#include <mutex>
#include <unordered_map>

#include "core/runtime/frame_executor.h"

namespace graft {
namespace {

std::string Where(const Node& n) { return StrCat(n.type(), " op '", n.name(), "'"); }

FrameExecutor::Flow FlowOf(const std::string& t) {
  using F = FrameExecutor::Flow;
  if (t == "Switch" || t == "RefSwitch") return F::kSwitch;
  if (t == "Merge" || t == "RefMerge") return F::kMerge;
  if (t == "Enter" || t == "RefEnter") return F::kEnter;
  if (t == "Exit" || t == "RefExit") return F::kExit;
  if (t == "NextIteration" || t == "RefNextIteration") return F::kNextIteration;
  if (t == "LoopCond") return F::kLoopCond;
  return F::kNone;
}

// The name of the frame that node's outputs are in ("" for the root), from the graph itself:
// for the producers of fed tensors, which do not run. Follows the first input (not a loop's
// back edge) up to the nearest Enter that no Exit on the way closes.
std::string GraphFrameOf(const Node* node) {
  int exits = 0;
  // (Only back edges close cycles, and they are not followed; the bound is a safeguard.)
  for (int64_t steps = 0; node != nullptr && steps < (int64_t{1} << 26); ++steps) {
    const FrameExecutor::Flow flow = FlowOf(node->type());
    if (flow == FrameExecutor::Flow::kEnter) {
      if (exits == 0) {
        const AttrValue* name = node->attr("frame_name");
        return name && name->get<std::string>() ? *name->get<std::string>() : "";
      }
      exits--;
    } else if (flow == FrameExecutor::Flow::kExit) {
      exits++;
    }
    const Node* next = nullptr;
    for (const Output& in : node->inputs()) {
      if (flow == FrameExecutor::Flow::kMerge && in.node &&
          FlowOf(in.node->type()) == FrameExecutor::Flow::kNextIteration) {
        continue;
      }
      next = in.node;
      break;
    }
    if (next == nullptr && !node->control_inputs().empty()) next = node->control_inputs()[0];
    node = next;
  }
  return "";
}

constexpr int64_t kDefaultParallelIterations = 10;  // the Enter op's default, as TensorFlow's
constexpr int kNoSource = std::numeric_limits<int>::min();

}  // namespace

// Works out each step's static frame and checks the frame structure as TensorFlow's executor
// does (its ControlFlowInfo): a graph that breaks these rules would otherwise hang, loop
// forever or read values of another frame.
Status FrameExecutor::Prepare(const Executor& exe, const std::unordered_map<const Node*, int>& step_of,
                              const std::unordered_map<std::string, int>& slot_of_fed,
                              std::unique_ptr<FrameExecutor>* out) {
  auto fx = std::unique_ptr<FrameExecutor>(new FrameExecutor(exe));
  GRAFT_RETURN_IF_ERROR(fx->Init(step_of, slot_of_fed));
  *out = std::move(fx);
  return Status::Ok();
}

Status FrameExecutor::Init(const std::unordered_map<const Node*, int>& step_of,
                           const std::unordered_map<std::string, int>& slot_of_fed) {
  const std::vector<Step>& steps = exe_.steps_;
  const size_t nk = steps.size();
  frame_steps_.assign(nk, FrameStep{});
  slot_consumers_.assign(static_cast<size_t>(exe_.num_slots_), {});
  slot_producer_.assign(static_cast<size_t>(exe_.num_slots_), -1);
  for (size_t k = 0; k < nk; ++k) {
    const Step& s = steps[k];
    for (int i = 0; i < s.num_outputs; ++i) slot_producer_[static_cast<size_t>(s.first_output + i)] = static_cast<int>(k);
  }
  auto frame_text = [this](int f) {
    return f == 0 ? std::string("the root frame") : StrCat("frame '", frame_name_[static_cast<size_t>(f)], "'");
  };
  // Static frames: a node lives in the frame of its (forward) inputs; Enter opens the child
  // frame its frame_name names, Exit returns to the parent. Creation order has every forward
  // producer before its consumers (only NextIteration -> Merge edges point back).
  frame_parent_ = {-1};
  frame_name_ = {""};
  frame_enters_ = {0};
  frame_parallel_ = {1};
  std::vector<int> first_enter = {-1};            // the Enter step that opened each frame
  std::unordered_map<std::string, int> frame_of;  // frame_name -> frame
  std::vector<int> source(nk, kNoSource);         // which input gave each step its frame
  // The frame an input's value is in: a fed value is the root's.
  auto producer_frame = [&](const Node& n, int i, int* producer) {
    const Output& in = n.input(i);
    *producer = -1;
    if (slot_of_fed.count(Graph::TensorName(in)) != 0) return 0;
    auto st = step_of.find(in.node);
    if (st == step_of.end()) return 0;
    *producer = st->second;
    return frame_steps_[static_cast<size_t>(st->second)].output_frame;
  };
  for (size_t k = 0; k < nk; ++k) {
    FrameStep& s = frame_steps_[k];
    const Node& n = *steps[k].node;
    s.flow = FlowOf(n.type());
    int frame = -1;
    for (int i = 0; i < n.num_inputs(); ++i) {
      const Output& in = n.input(i);
      bool fed = slot_of_fed.count(Graph::TensorName(in)) != 0;
      auto st = step_of.find(in.node);
      bool back = s.flow == Flow::kMerge && !fed && st != step_of.end() &&
                  FlowOf(in.node->type()) == Flow::kNextIteration;
      s.back_edge.push_back(back);
      // A fed value is delivered to its consumers when the run starts, like a producer's.
      if (fed || st != step_of.end()) s.pending_edges++;
      if (frame >= 0 || back) continue;
      if (fed || st == step_of.end()) {
        frame = 0;
        source[k] = i;
      } else if (static_cast<size_t>(st->second) < k) {
        frame = frame_steps_[static_cast<size_t>(st->second)].output_frame;
        source[k] = i;
      }
    }
    for (size_t c = 0; c < n.control_inputs().size(); ++c) {
      auto st = step_of.find(n.control_inputs()[c]);
      if (st == step_of.end()) continue;
      s.pending_edges++;
      frame_steps_[static_cast<size_t>(st->second)].control_successors.push_back(static_cast<int>(k));
      if (frame < 0 && static_cast<size_t>(st->second) < k) {
        frame = frame_steps_[static_cast<size_t>(st->second)].output_frame;
        source[k] = -1 - static_cast<int>(c);
      }
    }
    if (frame < 0) frame = 0;
    s.frame = frame;
    s.output_frame = frame;
    if (s.flow == Flow::kEnter) {
      const AttrValue* name_attr = n.attr("frame_name");
      const AttrValue* constant = n.attr("is_constant");
      const AttrValue* parallel = n.attr("parallel_iterations");
      std::string name = name_attr && name_attr->get<std::string>() ? *name_attr->get<std::string>() : "";
      if (name.empty()) {
        return errors::InvalidArgument(Where(n), " has an empty frame_name: an Enter must name its frame");
      }
      s.is_constant = constant && constant->get<bool>() && *constant->get<bool>();
      auto [it, inserted] = frame_of.emplace(name, static_cast<int>(frame_parent_.size()));
      if (inserted) {
        int64_t p = parallel && parallel->get<int64_t>() ? *parallel->get<int64_t>() : kDefaultParallelIterations;
        frame_parent_.push_back(frame);
        frame_name_.push_back(name);
        frame_enters_.push_back(0);
        frame_parallel_.push_back(static_cast<int>(std::clamp<int64_t>(p, 1, 1 << 20)));
        first_enter.push_back(static_cast<int>(k));
      } else if (frame_parent_[static_cast<size_t>(it->second)] != frame) {
        const Node& other = *steps[static_cast<size_t>(first_enter[static_cast<size_t>(it->second)])].node;
        return errors::InvalidArgument(Where(n), " enters frame '", name, "' from ", frame_text(frame), ", but ",
                                       Where(other), " enters it from ",
                                       frame_text(frame_parent_[static_cast<size_t>(it->second)]),
                                       ": the Enter ops of a frame must all be in one parent frame");
      }
      frame_enters_[static_cast<size_t>(it->second)]++;
      s.output_frame = it->second;
    } else if (s.flow == Flow::kExit) {
      if (frame == 0) {
        return errors::InvalidArgument(Where(n), " is not inside a loop: its input is in the root frame, and an ",
                                       "Exit can only leave a frame that an Enter op opened");
      }
      s.output_frame = frame_parent_[static_cast<size_t>(frame)];
    }
  }
  for (size_t k = 0; k < nk; ++k) {
    for (size_t i = 0; i < steps[k].inputs.size(); ++i) {
      slot_consumers_[static_cast<size_t>(steps[k].inputs[i])].push_back({static_cast<int>(k), static_cast<int>(i)});
    }
  }

  // A fed value enters the run in the root frame: a tensor inside a loop cannot stand in for
  // one iteration's value.
  for (size_t k = 0; k < nk; ++k) {
    const Node& n = *steps[k].node;
    for (const Output& in : n.inputs()) {
      if (slot_of_fed.count(Graph::TensorName(in)) == 0) continue;
      std::string frame = GraphFrameOf(in.node);
      if (!frame.empty()) {
        return errors::InvalidArgument("the fed tensor '", Graph::TensorName(in), "' is in frame '", frame,
                                       "' (", Where(n), " reads it): only tensors of the root frame can be fed");
      }
    }
  }
  // Every input of a node (data or control, back edges included) comes from the node's frame.
  auto input_text = [&](const Node& n, int src) {
    if (src >= 0) {
      int producer = -1;
      producer_frame(n, src, &producer);
      const Output& in = n.input(src);
      if (producer < 0) return StrCat("input ", src, " (the fed tensor '", Graph::TensorName(in), "')");
      return StrCat("input ", src, " (from ", Where(*in.node), ")");
    }
    return StrCat("the control input ", Where(*n.control_inputs()[static_cast<size_t>(-1 - src)]));
  };
  for (size_t k = 0; k < nk; ++k) {
    const FrameStep& s = frame_steps_[k];
    const Node& n = *steps[k].node;
    auto mismatch = [&](int src, int f) {
      std::string first = source[k] == kNoSource ? std::string("its other inputs are")
                                                 : StrCat(input_text(n, source[k]), " is");
      return errors::InvalidArgument(Where(n), " has inputs from different frames: ", input_text(n, src), " is in ",
                                     frame_text(f), ", but ", first, " in ", frame_text(s.frame));
    };
    for (int i = 0; i < n.num_inputs(); ++i) {
      int producer = -1;
      int f = producer_frame(n, i, &producer);
      if (f != s.frame) return mismatch(i, f);
    }
    for (size_t c = 0; c < n.control_inputs().size(); ++c) {
      auto st = step_of.find(n.control_inputs()[c]);
      if (st == step_of.end()) continue;
      int f = frame_steps_[static_cast<size_t>(st->second)].output_frame;
      if (f != s.frame) return mismatch(-1 - static_cast<int>(c), f);
    }
  }
  // Loops: a Merge needs a way in, and a NextIteration only ever feeds a loop's Merges.
  for (size_t k = 0; k < nk; ++k) {
    const FrameStep& s = frame_steps_[k];
    const Node& n = *steps[k].node;
    if (s.flow == Flow::kMerge && std::all_of(s.back_edge.begin(), s.back_edge.end(), [](bool b) { return b; })) {
      return errors::InvalidArgument(Where(n), " has only NextIteration inputs, so no value can ever reach it: a ",
                                     "loop's Merge takes its first value from an Enter op");
    }
    if (s.flow != Flow::kNextIteration) continue;
    if (s.frame == 0) {
      return errors::InvalidArgument(Where(n), " is not inside a loop: its input is in the root frame, and only a ",
                                     "loop's frame (opened by Enter ops) has a next iteration");
    }
    const auto& readers = slot_consumers_[static_cast<size_t>(steps[k].first_output)];
    for (auto [c, input] : readers) {
      const Step& consumer = steps[static_cast<size_t>(c)];
      if (frame_steps_[static_cast<size_t>(c)].flow != Flow::kMerge) {
        return errors::InvalidArgument(Where(n), " feeds ", Where(*consumer.node),
                                       ": a NextIteration's value can only go to a loop's Merge");
      }
    }
    if (!s.control_successors.empty()) {
      return errors::InvalidArgument(Where(n), " is a control input of ",
                                     Where(*steps[static_cast<size_t>(s.control_successors[0])].node),
                                     ": a NextIteration's value can only go to a loop's Merge");
    }
    if (readers.empty()) {
      return errors::InvalidArgument(Where(n), " feeds no Merge: a NextIteration's value must go to a loop's Merge");
    }
  }

  // A run's results are the root frame's values; a loop's values leave it through its Exits.
  for (int slot : exe_.fetch_slots_) {
    int producer = slot_producer_[static_cast<size_t>(slot)];
    if (producer < 0) continue;
    const Step& p = steps[static_cast<size_t>(producer)];
    const int output_frame = frame_steps_[static_cast<size_t>(producer)].output_frame;
    if (output_frame != 0) {
      return errors::InvalidArgument("the fetched tensor '",
                                     Graph::TensorName(Output{const_cast<Node*>(p.node), slot - p.first_output}),
                                     "' is in ", frame_text(output_frame),
                                     ": only tensors of the root frame (such as a loop's Exit) can be fetched");
    }
  }

  frame_roots_.assign(frame_parent_.size(), {});
  initial_pending_.resize(nk);
  for (size_t k = 0; k < nk; ++k) {
    const FrameStep& s = frame_steps_[k];
    initial_pending_[k] = s.pending_edges;
    if (s.pending_edges == 0 && s.flow != Flow::kMerge) {
      frame_roots_[static_cast<size_t>(s.frame)].push_back(static_cast<int>(k));
    }
    if (s.flow == Flow::kMerge) {
      max_merge_inputs_ = std::max(max_merge_inputs_, static_cast<int>(steps[k].inputs.size()));
    }
  }
  slot_readers_.resize(static_cast<size_t>(exe_.num_slots_));
  for (size_t i = 0; i < slot_readers_.size(); ++i) slot_readers_[i] = static_cast<int>(slot_consumers_[i].size());
  // Many steps, some of them expensive: the pool's workers may join the calling thread. (A
  // graph of cheap ops only, such as a loop over scalars, runs faster on one thread.)
  share_pool_ = false;
  if (nk > 16) {
    for (size_t k = 0; k < nk && !share_pool_; ++k) {
      share_pool_ = frame_steps_[k].flow == Flow::kNone && steps[k].kernel != nullptr && !steps[k].kernel->IsCheap();
    }
  }
  return Status::Ok();
}

// The state of one run: frame instances, their live iterations and those iterations' values.
// Everything here is guarded by the run's lock, except the slots that a kernel computing
// outside it reads (its inputs, which nothing else writes until it is done) and writes (its
// outputs, which nothing else reads until they are delivered).
struct FrameExecutor::FrameRun {
  struct Frame;
  enum SlotState : uint8_t { kEmpty, kLive, kDead };
  // One iteration of one frame instance: its values and what each step still waits for.
  struct Iteration {
    Frame* frame = nullptr;
    int64_t index = 0;
    int outstanding = 0;  // its steps queued or computing
    std::vector<std::unique_ptr<Frame>> children;  // live frame instances entered from here
    std::vector<Tensor> slots;
    std::vector<uint8_t> slot_state;
    std::vector<int> readers;         // per slot: reads still to come in this iteration
    std::vector<int> pending;         // per step: edges still to arrive
    std::vector<uint8_t> dead_input;  // per step: a dead value or dead control input arrived
    std::vector<int> merge_dead;      // Merge: dead data inputs so far
    std::vector<uint8_t> fired;       // Merge: already fired in this iteration
  };
  struct Frame {
    Iteration* parent = nullptr;  // nullptr for the root
    int static_frame = 0;
    int pending_enters = 0;       // Enters (from the parent iteration) yet to run
    int64_t base = 0;             // index of iterations.front()
    std::deque<std::unique_ptr<Iteration>> iterations;  // the live ones, consecutive
    std::vector<std::tuple<int, Tensor, bool>> invariants;  // (Enter, value, dead) of is_constant Enters
    std::vector<std::pair<int, Tensor>> deferred;  // (NextIteration, value) waiting for parallel_iterations
    bool any_live = false;
  };

  const FrameExecutor* fx = nullptr;
  const Executor* exe = nullptr;  // fx->exe_
  std::deque<std::pair<int, Iteration*>> ready;
  std::unique_ptr<Frame> root;
  std::vector<std::unique_ptr<Iteration>> spare;  // retired iterations, reused for new ones
  std::vector<Tensor> merge_index;                // Merge value_index values: [i + 1] holds i
  // Memory accounting (when tracked): each buffer counts once while some slot holds it.
  bool track = false;
  int64_t live_bytes = 0;
  int64_t peak_bytes = 0;
  std::unordered_map<const TensorBuffer*, int> held;

  void Track(const Tensor& t) {
    if (!track || !t.valid() || t.buffer() == nullptr) return;
    if (held[t.buffer().get()]++ == 0) {
      live_bytes += static_cast<int64_t>(t.byte_size());
      peak_bytes = std::max(peak_bytes, live_bytes);
    }
  }
  void Untrack(const Tensor& t) {
    if (!track || !t.valid() || t.buffer() == nullptr) return;
    auto found = held.find(t.buffer().get());
    if (found == held.end()) return;
    if (--found->second == 0) {
      live_bytes -= static_cast<int64_t>(t.byte_size());
      held.erase(found);
    }
  }

  void Push(int k, Iteration* it) {
    ready.push_back({k, it});
    ++it->outstanding;
  }

  // Starts the next iteration of f (index base + number of live ones).
  Iteration* NewIteration(Frame* f) {
    const size_t ns = static_cast<size_t>(exe->num_slots_), nk = exe->steps_.size();
    std::unique_ptr<Iteration> it;
    if (!spare.empty()) {
      it = std::move(spare.back());
      spare.pop_back();
    } else {
      it = std::make_unique<Iteration>();
      it->slots.resize(ns);
    }
    it->frame = f;
    it->index = f->base + static_cast<int64_t>(f->iterations.size());
    it->outstanding = 0;
    it->slot_state.assign(ns, kEmpty);
    it->readers = fx->slot_readers_;
    it->pending = fx->initial_pending_;
    it->dead_input.assign(nk, 0);
    it->merge_dead.assign(nk, 0);
    it->fired.assign(nk, 0);
    Iteration* raw = it.get();
    f->iterations.push_back(std::move(it));
    // Steps of this frame that wait on nothing start now (constants with no control input).
    for (int k : fx->frame_roots_[static_cast<size_t>(f->static_frame)]) Push(k, raw);
    for (const auto& [k, value, dead] : f->invariants) Emit(k, raw, value, dead);
    return raw;
  }

  // The child frame instance that Enter step `enter` of iteration `parent` enters.
  Frame* ChildFrame(Iteration* parent, const FrameStep& enter) {
    for (const auto& c : parent->children) {
      if (c->static_frame == enter.output_frame) return c.get();
    }
    auto f = std::make_unique<Frame>();
    f->parent = parent;
    f->static_frame = enter.output_frame;
    f->pending_enters = fx->frame_enters_[static_cast<size_t>(enter.output_frame)];
    parent->children.push_back(std::move(f));
    return parent->children.back().get();
  }

  // An iteration is done when none of its steps is queued or computing, no child frame of it
  // is alive, and nothing more can arrive in it: in the first iteration every Enter has run;
  // later ones get values only from the previous iteration, which must be gone.
  bool Done(const Iteration& it) const {
    const Frame& f = *it.frame;
    return f.parent != nullptr && it.outstanding == 0 && it.children.empty() &&
           (it.index > 0 || f.pending_enters == 0);
  }

  void Retire(std::unique_ptr<Iteration> it) {
    for (Tensor& t : it->slots) {
      if (t.valid()) {
        Untrack(t);
        t = Tensor();
      }
    }
    if (spare.size() < 16) spare.push_back(std::move(it));
  }

  // Drops what of frame f is done: its oldest iterations in order, then (once nothing more can
  // enter it) the frame itself. Values that waited for a free iteration start the next one.
  void CheckFrame(Frame* f) {
    for (;;) {
      while (!f->iterations.empty() && Done(*f->iterations.front())) {
        std::unique_ptr<Iteration> it = std::move(f->iterations.front());
        f->iterations.pop_front();
        f->base++;
        Retire(std::move(it));
      }
      const size_t parallel = static_cast<size_t>(fx->frame_parallel_[static_cast<size_t>(f->static_frame)]);
      if (f->deferred.empty() || f->iterations.size() >= parallel) break;
      std::vector<std::pair<int, Tensor>> values = std::move(f->deferred);
      f->deferred.clear();
      Iteration* next = NewIteration(f);
      for (auto& [k, value] : values) {
        Emit(k, next, value, false);
        Untrack(value);
      }
    }
    if (f->parent == nullptr || !f->iterations.empty() || !f->deferred.empty() || f->pending_enters > 0) return;
    Iteration* parent = f->parent;
    auto& siblings = parent->children;
    for (size_t i = 0; i < siblings.size(); ++i) {
      if (siblings[i].get() == f) {
        siblings.erase(siblings.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    }
    CheckFrame(parent->frame);
  }

  // One step of `it` finished (it was queued and counted).
  void StepDone(Iteration* it) {
    if (--it->outstanding == 0) CheckFrame(it->frame);
  }

  // A reader of slot in `it` is done with it: the last one drops the value.
  void Release(Iteration* it, int slot) {
    const size_t u = static_cast<size_t>(slot);
    if (--it->readers[u] == 0 && !exe->keep_slot_[u]) {
      Untrack(it->slots[u]);
      it->slots[u] = Tensor();
    }
  }

  // Puts a value into slot of iteration `it` and tells its consumers there.
  void Deliver(int slot, Tensor value, bool dead, Iteration* it) {
    const size_t u = static_cast<size_t>(slot);
    it->slot_state[u] = dead ? kDead : kLive;
    if (!dead) {
      it->frame->any_live = true;
      Track(value);
    }
    it->slots[u] = std::move(value);
    for (auto [k, input] : fx->slot_consumers_[u]) {
      if (fx->frame_steps_[static_cast<size_t>(k)].flow == Flow::kMerge) {
        ArriveAtMerge(k, input, dead, it);
        Release(it, slot);  // Merge reads its input as it arrives
        continue;
      }
      if (dead) it->dead_input[static_cast<size_t>(k)] = 1;
      if (--it->pending[static_cast<size_t>(k)] == 0) Push(k, it);
    }
    if (it->readers[u] == 0 && !exe->keep_slot_[u] && it->slots[u].valid()) {  // nobody reads it
      Untrack(it->slots[u]);
      it->slots[u] = Tensor();
    }
  }

  // Merge fires on its first live input, or dead when every input it can get is dead: for a
  // loop's Merge, in the first iteration the forward inputs and afterwards the back edges; for
  // any other Merge (a cond's, also inside a loop), all of its inputs.
  void ArriveAtMerge(int k, int input, bool dead, Iteration* it) {
    const FrameStep& m = fx->frame_steps_[static_cast<size_t>(k)];
    size_t uk = static_cast<size_t>(k);
    if (it->fired[uk]) return;
    if (!dead) {
      it->fired[uk] = 1;
      Fire(k, it, input, false);
      return;
    }
    const bool loop = std::find(m.back_edge.begin(), m.back_edge.end(), true) != m.back_edge.end();
    int expected = 0;
    for (size_t i = 0; i < m.back_edge.size(); ++i) {
      if (!loop || m.back_edge[i] == (it->index > 0)) expected++;
    }
    if (++it->merge_dead[uk] >= expected) {
      it->fired[uk] = 1;
      Fire(k, it, -1, true);
    }
  }

  void Fire(int k, Iteration* it, int chosen, bool dead) {
    const Step& m = exe->steps_[static_cast<size_t>(k)];
    if (dead) {
      Finish(k, it, nullptr, nullptr);
      return;
    }
    if (merge_index.empty()) {
      merge_index.resize(static_cast<size_t>(fx->max_merge_inputs_) + 1);
      for (size_t i = 0; i < merge_index.size(); ++i) {
        if (Tensor::Allocate(DType::kInt32, {}, &merge_index[i]).ok()) {
          merge_index[i].data<int32_t>()[0] = static_cast<int32_t>(i) - 1;
        }
      }
    }
    // value_index is shared between firings; the run's copy keeps a kernel from reusing it.
    Tensor outs[2] = {it->slots[static_cast<size_t>(m.inputs[static_cast<size_t>(chosen)])],
                      merge_index[static_cast<size_t>(chosen) + 1]};
    Finish(k, it, outs, nullptr);
  }

  // Delivers step k's outputs in iteration `it` and releases its control successors there.
  // outs == nullptr: every output is dead; else dead == nullptr: every output is live.
  void Finish(int k, Iteration* it, Tensor* outs, const bool* dead) {
    const Step& s = exe->steps_[static_cast<size_t>(k)];
    bool all_dead = s.num_outputs > 0;
    for (int i = 0; i < s.num_outputs; ++i) {
      const size_t ui = static_cast<size_t>(i);
      const bool d = outs == nullptr || (dead != nullptr && dead[ui]);
      all_dead = all_dead && d;
      Deliver(s.first_output + i, d ? Tensor() : std::move(outs[ui]), d, it);
    }
    for (int c : fx->frame_steps_[static_cast<size_t>(k)].control_successors) {
      if (all_dead) it->dead_input[static_cast<size_t>(c)] = 1;
      if (--it->pending[static_cast<size_t>(c)] == 0) Push(c, it);
    }
  }

  // Finish for the one output of an Enter, Exit, NextIteration or LoopCond.
  void Emit(int k, Iteration* it, const Tensor& value, bool dead) {
    Tensor out = dead ? Tensor() : value;
    Finish(k, it, dead ? nullptr : &out, nullptr);
  }

  // A control-flow op (or a step with a dead input) of iteration `it`, under the lock.
  Status ControlStep(int k, Iteration* it, bool dead) {
    const Step& s = exe->steps_[static_cast<size_t>(k)];
    const FrameStep& fs = fx->frame_steps_[static_cast<size_t>(k)];
    const Node& n = *s.node;
    auto in = [&](int i) -> const Tensor& { return it->slots[static_cast<size_t>(s.inputs[static_cast<size_t>(i)])]; };
    switch (fs.flow) {
      case Flow::kSwitch: {
        Tensor outs[2];
        bool out_dead[2] = {dead, dead};
        if (!dead) {
          const Tensor& pred = in(1);
          if (pred.dtype() != DType::kBool || pred.num_elements() != 1) {
            return errors::InvalidArgument(Where(n), ": pred must be a bool scalar");
          }
          bool p = pred.data<bool>()[0];
          outs[0] = outs[1] = in(0);
          out_dead[0] = p;   // output_false is live when pred is false
          out_dead[1] = !p;  // output_true is live when pred is true
        }
        Finish(k, it, outs, out_dead);
        break;
      }
      case Flow::kEnter: {
        Frame* child = ChildFrame(it, fs);
        const Tensor value = dead ? Tensor() : in(0);
        if (fs.is_constant) {
          // The same value in every iteration: the live ones now, later ones as they start.
          child->invariants.emplace_back(k, value, dead);
          if (child->iterations.empty()) {
            NewIteration(child);
          } else {
            for (const auto& iteration : child->iterations) Emit(k, iteration.get(), value, dead);
          }
        } else {
          // Iteration 0 stays alive until every Enter has run (Done), so it is the front.
          Emit(k, child->iterations.empty() ? NewIteration(child) : child->iterations.front().get(), value, dead);
        }
        --child->pending_enters;
        CheckFrame(child);  // (this step keeps `it`, and so the child's parent, alive)
        break;
      }
      case Flow::kExit: {
        Frame* f = it->frame;
        // A dead value leaves the loop only when the whole frame is dead (the loop sat in an
        // untaken branch); otherwise the live value of the last iteration does.
        if (!dead || !f->any_live) {
          if (f->parent->slot_state[static_cast<size_t>(s.first_output)] != kEmpty) {
            return errors::InvalidArgument(Where(n), " left frame '", fx->frame_name_[static_cast<size_t>(fs.frame)],
                                           "' with a second value (in iteration ", it->index,
                                           "): a loop's Exit must take the Switch output that LoopCond ends");
          }
          Emit(k, f->parent, dead ? Tensor() : in(0), dead);
        }
        break;
      }
      case Flow::kNextIteration: {
        if (dead) break;  // the loop ended here: no next iteration
        Frame* f = it->frame;
        const int64_t next = it->index + 1;
        const int64_t end = f->base + static_cast<int64_t>(f->iterations.size());
        const size_t parallel = static_cast<size_t>(fx->frame_parallel_[static_cast<size_t>(f->static_frame)]);
        if (next < end) {
          Emit(k, f->iterations[static_cast<size_t>(next - f->base)].get(), in(0), false);
        } else if (f->deferred.empty() && f->iterations.size() < parallel) {
          Emit(k, NewIteration(f), in(0), false);
        } else {
          // parallel_iterations are running: the value waits until the oldest is done.
          f->deferred.emplace_back(k, in(0));
          Track(in(0));
        }
        break;
      }
      case Flow::kMerge:
        return Status::Ok();  // fired as its inputs arrive (queued only by a control input)
      case Flow::kLoopCond:
        Emit(k, it, dead ? Tensor() : in(0), dead);
        break;
      case Flow::kNone:  // a dead op: its outputs are dead
        Finish(k, it, nullptr, nullptr);
        break;
    }
    for (int slot : s.inputs) Release(it, slot);
    return Status::Ok();
  }
};

Status FrameExecutor::Run(std::vector<Tensor>& root_slots, ResourceMgr* resources, ThreadPool* pool,
                          RunStats* stats, const RunControl* control) const {
  const std::vector<Step>& steps = exe_.steps_;
  // Shared by the threads working on the run: the frame bookkeeping, guarded by mu. Kernels
  // compute outside the lock; control-flow ops (cheap) run under it.
  struct Shared {
    FrameRun run;
    std::mutex mu;
    std::condition_variable cv;
    int in_flight = 0;  // kernels computing outside the lock
    int64_t steps_run = 0;
    Status error;
    std::atomic<bool> wake{false};  // (for spinning waiters) work is ready or the run is over
    bool Finished() const { return in_flight == 0 && (run.ready.empty() || !error.ok()); }
    bool CanWork() const { return !run.ready.empty() && error.ok(); }
  };
  auto sh = std::make_shared<Shared>();
  FrameRun& run = sh->run;
  run.fx = this;
  run.exe = &exe_;
  run.track = stats != nullptr;
  if (run.track) {
    // Constants are resident for the whole run (and counted once, however many slots hold them).
    run.live_bytes = run.peak_bytes = exe_.const_bytes_;
    for (const Step& s : steps) {
      if (s.node->type() != "Const") continue;
      const AttrValue* v = s.node->attr("value");
      if (v && v->get<Tensor>() && v->get<Tensor>()->buffer()) run.held[v->get<Tensor>()->buffer().get()] = 1;
    }
  }
  run.root = std::make_unique<FrameRun::Frame>();
  FrameRun::Iteration* top = run.NewIteration(run.root.get());
  for (size_t i = 0; i < exe_.feed_slots_.size(); ++i) {
    int slot = exe_.feed_slots_[i];
    run.Deliver(slot, root_slots[static_cast<size_t>(slot)], false, top);
  }
  const int64_t kMaxSteps = int64_t{1} << 32;  // a runaway loop ends with an error, not a hang

  // This thread takes the next ready step itself; others are woken only for an expensive
  // kernel among the rest (as TensorFlow's executor runs inexpensive ops inline): a loop of
  // scalar ops then stays on one thread, where hand-offs would cost more than the ops.
  auto worth_sharing = [this](const std::deque<std::pair<int, FrameRun::Iteration*>>& ready) {
    const size_t n = std::min<size_t>(ready.size(), 9);
    for (size_t i = 1; i < n; ++i) {
      const size_t k = static_cast<size_t>(ready[i].first);
      const Step& s = exe_.steps_[k];
      if (frame_steps_[k].flow == Flow::kNone && s.kernel != nullptr && !s.kernel->IsCheap()) return true;
    }
    return false;
  };

  // Takes ready steps until the run is finished (or failed). Kernels run outside the lock, so
  // several workers compute independent ops (and iterations) at once.
  auto work = [this, resources, control, worth_sharing, kMaxSteps](const std::shared_ptr<Shared>& shared) {
    Shared& st = *shared;
    std::vector<uint8_t> forward;  // inputs the kernel may overwrite
    std::vector<Tensor> outs;
    std::unique_lock lock(st.mu);
    for (;;) {
      if (!st.Finished() && !st.CanWork()) {
        // Spin a little before sleeping: the next step is usually microseconds away, and a
        // sleeping thread takes longer than that to wake.
        st.wake.store(false, std::memory_order_relaxed);
        lock.unlock();
        SpinUntil([&] { return st.wake.load(std::memory_order_acquire); }, std::chrono::microseconds(20));
        lock.lock();
      }
      st.cv.wait(lock, [&] { return st.Finished() || st.CanWork(); });
      if (st.Finished()) {
        st.cv.notify_all();
        return;
      }
      const int k = st.run.ready.front().first;
      FrameRun::Iteration* const it = st.run.ready.front().second;
      st.run.ready.pop_front();
      if (++st.steps_run > kMaxSteps) {
        st.error = errors::ResourceExhausted("the run did not finish after ", kMaxSteps, " steps");
        st.run.StepDone(it);
        continue;
      }
      const Step& s = exe_.steps_[static_cast<size_t>(k)];
      const bool dead = it->dead_input[static_cast<size_t>(k)] != 0;
      Status result;
      if (frame_steps_[static_cast<size_t>(k)].flow == Flow::kNone && !dead) {
        // An input may be overwritten in place when this step is its only reader and no other
        // slot holds its buffer. Checked here, under the lock that every other holder lets go
        // under, so the kernel's own check agrees and no other thread still reads the memory.
        forward.assign(s.sole_consumer.begin(), s.sole_consumer.end());
        for (size_t i = 0; i < forward.size(); ++i) {
          if (forward[i] && it->slots[static_cast<size_t>(s.inputs[i])].buffer().use_count() != 1) forward[i] = 0;
        }
        ++st.in_flight;
        lock.unlock();
        result = exe_.RunStep(s, it->slots, resources, control, /*parallel=*/true, &forward);
        outs.resize(static_cast<size_t>(s.num_outputs));
        if (result.ok()) {
          for (int i = 0; i < s.num_outputs; ++i) {
            outs[static_cast<size_t>(i)] = std::move(it->slots[static_cast<size_t>(s.first_output + i)]);
          }
        }
        lock.lock();
        --st.in_flight;
        if (result.ok()) {
          st.run.Finish(k, it, outs.data(), nullptr);
          for (int slot : s.inputs) st.run.Release(it, slot);
        }
      } else {
        // (Checked here too: a loop whose iterations are control steps alone stops as well.)
        result = control != nullptr ? control->Check(*s.node) : Status::Ok();
        if (result.ok()) result = st.run.ControlStep(k, it, dead);
      }
      st.run.StepDone(it);
      if (!result.ok() && st.error.ok()) st.error = result;
      // This thread takes the next ready step itself: wake the others only for more than that
      // (a loop's chain of steps then stays on one thread without wake-ups), or at the end.
      if (st.Finished() || worth_sharing(st.run.ready)) {
        st.wake.store(true, std::memory_order_release);
        st.cv.notify_all();
      }
    }
  };

  if (pool != nullptr && pool->size() > 0 && share_pool_) {
    for (int i = 0; i < pool->size(); ++i) pool->Schedule([sh, work] { work(sh); });
  }
  work(sh);
  // Helpers may still be leaving work(); they hold sh and touch nothing else.
  std::lock_guard lock(sh->mu);
  GRAFT_RETURN_IF_ERROR(sh->error);
  for (size_t i = 0; i < exe_.fetch_slots_.size(); ++i) {
    int slot = exe_.fetch_slots_[i];
    const size_t u = static_cast<size_t>(slot);
    if (top->slot_state[u] != FrameRun::kLive || !top->slots[u].valid()) {
      int producer = slot_producer_[static_cast<size_t>(slot)];
      std::string what = producer >= 0 ? Where(*steps[static_cast<size_t>(producer)].node) : std::string("a feed");
      return errors::InvalidArgument("the fetched output of ", what, " has no value: it is on an untaken branch");
    }
    root_slots[static_cast<size_t>(slot)] = top->slots[static_cast<size_t>(slot)];
  }
  if (stats) {
    stats->nodes_run = sh->steps_run;
    stats->peak_bytes = run.peak_bytes;
  }
  return Status::Ok();
}

}  // namespace graft
