// The frame engine: runs graphs with TensorFlow 1 control flow (Switch, Merge, Enter, Exit,
// NextIteration, LoopCond). Values carry a tag — the frame instance and iteration they
// belong to — and may be dead (the untaken side of a Switch). A node with a dead input
// produces dead outputs without running; Merge forwards the first live input; Enter moves a
// value into a child frame, NextIteration to the next iteration, Exit back to the parent.
// The bookkeeping is shared under one lock; kernels compute outside it, on the calling
// thread and (for graphs of more than a few ops) the session pool's workers, so independent
// ops and, within parallel_iterations' bounds of the graph's own dependencies, iterations
// overlap.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>

#include "core/runtime/executable.h"

namespace graft {
namespace {

std::string Where(const Node& n) { return StrCat(n.type(), " op '", n.name(), "'"); }

Executable::Flow FlowOf(const std::string& t) {
  using F = Executable::Flow;
  if (t == "Switch" || t == "RefSwitch") return F::kSwitch;
  if (t == "Merge" || t == "RefMerge") return F::kMerge;
  if (t == "Enter" || t == "RefEnter") return F::kEnter;
  if (t == "Exit" || t == "RefExit") return F::kExit;
  if (t == "NextIteration" || t == "RefNextIteration") return F::kNextIteration;
  if (t == "LoopCond") return F::kLoopCond;
  return F::kNone;
}

}  // namespace

Status Executable::PrepareFrames(const std::unordered_map<const Node*, int>& step_of,
                                 const std::unordered_map<std::string, int>& slot_of_fed) {
  slot_consumers_.assign(static_cast<size_t>(num_slots_), {});
  slot_producer_.assign(static_cast<size_t>(num_slots_), -1);
  for (size_t k = 0; k < steps_.size(); ++k) {
    Step& s = steps_[k];
    for (int i = 0; i < s.num_outputs; ++i) slot_producer_[static_cast<size_t>(s.first_output + i)] = static_cast<int>(k);
  }
  // Static frames: a node lives in the frame of its (forward) inputs; Enter opens a child
  // frame of its input's, Exit returns to the parent. Creation order has every forward
  // producer before its consumers.
  frame_parent_ = {-1};
  std::map<std::pair<int, std::string>, int> child;  // (parent frame, name) -> frame
  for (size_t k = 0; k < steps_.size(); ++k) {
    Step& s = steps_[k];
    const Node& n = *s.node;
    s.flow = FlowOf(n.type());
    int frame = -1;
    for (int i = 0; i < n.num_inputs(); ++i) {
      const Output& in = n.input(i);
      bool fed = slot_of_fed.count(Graph::TensorName(in)) != 0;
      auto st = step_of.find(in.node);
      bool back = s.flow == Flow::kMerge && st != step_of.end() && FlowOf(in.node->type()) == Flow::kNextIteration;
      s.back_edge.push_back(back);
      if (!fed && st != step_of.end()) s.pending_edges++;
      if (frame < 0 && !back && !fed && st != step_of.end() && static_cast<size_t>(st->second) < k) {
        frame = steps_[static_cast<size_t>(st->second)].output_frame;
      }
    }
    for (const Node* c : n.control_inputs()) {
      auto st = step_of.find(c);
      if (st == step_of.end()) continue;
      s.pending_edges++;
      steps_[static_cast<size_t>(st->second)].control_successors.push_back(static_cast<int>(k));
      if (frame < 0 && static_cast<size_t>(st->second) < k) frame = steps_[static_cast<size_t>(st->second)].output_frame;
    }
    if (frame < 0) frame = 0;
    s.frame = frame;
    s.output_frame = frame;
    if (s.flow == Flow::kEnter) {
      const AttrValue* name = n.attr("frame_name");
      const AttrValue* constant = n.attr("is_constant");
      s.frame_name = name && name->get<std::string>() ? *name->get<std::string>() : "";
      s.is_constant = constant && constant->get<bool>() && *constant->get<bool>();
      auto [it, inserted] = child.emplace(std::make_pair(frame, s.frame_name), static_cast<int>(frame_parent_.size()));
      if (inserted) frame_parent_.push_back(frame);
      s.output_frame = it->second;
    } else if (s.flow == Flow::kExit) {
      if (frame == 0) return errors::InvalidArgument(Where(n), " is not inside a loop frame");
      s.output_frame = frame_parent_[static_cast<size_t>(frame)];
    }
  }
  for (size_t k = 0; k < steps_.size(); ++k) {
    for (size_t i = 0; i < steps_[k].inputs.size(); ++i) {
      slot_consumers_[static_cast<size_t>(steps_[k].inputs[i])].push_back({static_cast<int>(k), static_cast<int>(i)});
    }
  }
  // Many steps, some of them expensive: the pool's workers may join the calling thread. (A
  // graph of cheap ops only, such as a loop over scalars, runs faster on one thread.)
  frames_share_pool_ = steps_.size() > 16 && std::any_of(steps_.begin(), steps_.end(), [](const Step& s) {
                         return s.flow == Flow::kNone && s.kernel != nullptr && !s.kernel->IsCheap();
                       });
  return Status::Ok();
}

// One iteration of one frame instance: its values, what each step still waits for.
struct Executable::FrameRun {
  struct Frame;
  struct Iteration {
    Frame* frame = nullptr;
    int64_t index = 0;
    std::vector<Tensor> slots;
    std::vector<uint8_t> dead_slot;
    std::vector<int> pending;        // edges still to arrive, per step
    std::vector<uint8_t> dead_input;  // a dead value or dead control input arrived, per step
    std::vector<int> merge_dead;     // Merge: dead data inputs so far
    std::vector<uint8_t> fired;      // Merge: already fired in this iteration
  };
  struct Frame {
    Iteration* parent = nullptr;
    int static_frame = 0;
    std::map<int64_t, std::unique_ptr<Iteration>> iterations;
    std::vector<std::pair<int, Tensor>> invariants;  // (slot, value) of is_constant Enters
    std::vector<std::pair<int, bool>> invariant_dead;
    bool any_live = false;
  };

  const Executable* exe;
  std::deque<std::pair<int, Iteration*>> ready;
  std::vector<std::unique_ptr<Frame>> frames;
  std::map<std::tuple<Iteration*, std::string>, Frame*> children;

  Iteration* NewIteration(Frame* f, int64_t index) {
    auto it = std::make_unique<Iteration>();
    it->frame = f;
    it->index = index;
    size_t ns = static_cast<size_t>(exe->num_slots_), nk = exe->steps_.size();
    it->slots.resize(ns);
    it->dead_slot.assign(ns, 0);
    it->pending.resize(nk);
    it->dead_input.assign(nk, 0);
    it->merge_dead.assign(nk, 0);
    it->fired.assign(nk, 0);
    for (size_t k = 0; k < nk; ++k) it->pending[k] = exe->steps_[k].pending_edges;
    Iteration* raw = it.get();
    f->iterations[index] = std::move(it);
    // Steps of this frame that wait on nothing start now (constants with no control input).
    for (size_t k = 0; k < nk; ++k) {
      const Step& s = exe->steps_[k];
      if (s.frame == f->static_frame && s.pending_edges == 0 && s.flow != Flow::kMerge) ready.push_back({static_cast<int>(k), raw});
    }
    for (size_t i = 0; i < f->invariants.size(); ++i) {
      Deliver(f->invariants[i].first, f->invariants[i].second, f->invariant_dead[i].second, raw);
    }
    return raw;
  }

  Iteration* IterationOf(Frame* f, int64_t index) {
    auto found = f->iterations.find(index);
    return found != f->iterations.end() ? found->second.get() : NewIteration(f, index);
  }

  Frame* ChildFrame(Iteration* parent, const Step& enter) {
    auto key = std::make_tuple(parent, enter.frame_name);
    auto found = children.find(key);
    if (found != children.end()) return found->second;
    auto f = std::make_unique<Frame>();
    f->parent = parent;
    f->static_frame = enter.output_frame;
    Frame* raw = f.get();
    frames.push_back(std::move(f));
    children[key] = raw;
    return raw;
  }

  // Puts a value into slot of iteration `it` and tells its consumers there.
  void Deliver(int slot, const Tensor& value, bool dead, Iteration* it) {
    it->slots[static_cast<size_t>(slot)] = value;
    it->dead_slot[static_cast<size_t>(slot)] = dead;
    if (!dead) it->frame->any_live = true;
    for (auto [k, input] : exe->slot_consumers_[static_cast<size_t>(slot)]) {
      const Step& c = exe->steps_[static_cast<size_t>(k)];
      if (c.flow == Flow::kMerge) {
        ArriveAtMerge(k, input, dead, it);
        continue;
      }
      if (dead) it->dead_input[static_cast<size_t>(k)] = 1;
      if (--it->pending[static_cast<size_t>(k)] == 0) ready.push_back({k, it});
    }
  }

  // Merge fires on its first live input, or dead when every input it can get is dead: in
  // the first iteration of a loop the forward inputs, afterwards the back edges.
  void ArriveAtMerge(int k, int input, bool dead, Iteration* it) {
    const Step& m = exe->steps_[static_cast<size_t>(k)];
    size_t uk = static_cast<size_t>(k);
    if (it->fired[uk]) return;
    if (!dead) {
      it->fired[uk] = 1;
      Fire(k, it, input, false);
      return;
    }
    int expected = 0;
    for (size_t i = 0; i < m.back_edge.size(); ++i) {
      if (m.back_edge[i] == (it->index > 0)) expected++;
    }
    if (++it->merge_dead[uk] >= expected) {
      it->fired[uk] = 1;
      Fire(k, it, -1, true);
    }
  }

  void Fire(int k, Iteration* it, int chosen, bool dead) {
    const Step& m = exe->steps_[static_cast<size_t>(k)];
    Tensor index;
    if (Tensor::Allocate(DType::kInt32, {}, &index).ok()) index.data<int32_t>()[0] = chosen;
    Tensor value = dead ? Tensor() : it->slots[static_cast<size_t>(m.inputs[static_cast<size_t>(chosen)])];
    Finish(k, it, {value, index}, {dead, dead});
  }

  // Delivers a finished step's outputs and releases its control successors.
  void Finish(int k, Iteration* it, const std::vector<Tensor>& outs, const std::vector<bool>& dead) {
    const Step& s = exe->steps_[static_cast<size_t>(k)];
    for (int i = 0; i < s.num_outputs && static_cast<size_t>(i) < outs.size(); ++i) {
      Deliver(s.first_output + i, outs[static_cast<size_t>(i)], dead[static_cast<size_t>(i)], it);
    }
    bool node_dead = !dead.empty() && std::all_of(dead.begin(), dead.end(), [](bool d) { return d; });
    for (int c : s.control_successors) {
      if (node_dead) it->dead_input[static_cast<size_t>(c)] = 1;
      if (--it->pending[static_cast<size_t>(c)] == 0) ready.push_back({c, it});
    }
  }
};

Status Executable::RunFrames(std::vector<Tensor>& root_slots, ResourceMgr* resources, ThreadPool* pool,
                             RunStats* stats) const {
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
  run.exe = this;
  auto root = std::make_unique<FrameRun::Frame>();
  FrameRun::Frame* root_frame = root.get();
  run.frames.push_back(std::move(root));
  FrameRun::Iteration* top = run.NewIteration(root_frame, 0);
  for (size_t i = 0; i < feed_slots_.size(); ++i) {
    int slot = feed_slots_[i];
    run.Deliver(slot, root_slots[static_cast<size_t>(slot)], false, top);
  }
  const int64_t kMaxSteps = int64_t{1} << 32;  // a runaway loop ends with an error, not a hang

  // A control-flow op (or a step with a dead input), under the lock.
  auto control_step = [this, &run](int k, FrameRun::Iteration* it, bool dead) -> Status {
    const Step& s = steps_[static_cast<size_t>(k)];
    const Node& n = *s.node;
    std::vector<Tensor> outs(static_cast<size_t>(s.num_outputs));
    std::vector<bool> out_dead(static_cast<size_t>(s.num_outputs), dead);
    auto in = [&](int i) -> const Tensor& { return it->slots[static_cast<size_t>(s.inputs[static_cast<size_t>(i)])]; };
    switch (s.flow) {
      case Flow::kSwitch: {
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
        run.Finish(k, it, outs, out_dead);
        break;
      }
      case Flow::kEnter: {
        FrameRun::Frame* child = run.ChildFrame(it, s);
        if (!dead) outs[0] = in(0);
        if (s.is_constant) {
          child->invariants.push_back({s.first_output, outs[0]});
          child->invariant_dead.push_back({s.first_output, dead});
          for (auto& [index, iteration] : child->iterations) run.Deliver(s.first_output, outs[0], dead, iteration.get());
          if (child->iterations.empty()) run.NewIteration(child, 0);
        } else {
          run.Deliver(s.first_output, outs[0], dead, run.IterationOf(child, 0));
        }
        for (int c : s.control_successors) {
          if (--it->pending[static_cast<size_t>(c)] == 0) run.ready.push_back({c, it});
        }
        break;
      }
      case Flow::kExit: {
        FrameRun::Frame* f = it->frame;
        // A dead value leaves the loop only when the whole frame is dead (the loop sat in an
        // untaken branch); otherwise the live value of the last iteration does.
        if (!dead || !f->any_live) {
          if (!dead) outs[0] = in(0);
          run.Deliver(s.first_output, outs[0], dead, f->parent);
        }
        break;
      }
      case Flow::kNextIteration: {
        if (dead) break;  // the loop ended here: no next iteration
        FrameRun::Iteration* next = run.IterationOf(it->frame, it->index + 1);
        run.Deliver(s.first_output, in(0), false, next);
        break;
      }
      case Flow::kMerge:
        break;  // fired when its inputs arrive
      case Flow::kLoopCond:
        if (!dead) outs[0] = in(0);
        run.Finish(k, it, outs, out_dead);
        break;
      case Flow::kNone:  // a dead op: its outputs are dead
        run.Finish(k, it, outs, out_dead);
        break;
    }
    return Status::Ok();
  };

  // This thread takes the next ready step itself; others are woken only for an expensive
  // kernel among the rest (as TensorFlow's executor runs inexpensive ops inline): a loop of
  // scalar ops then stays on one thread, where hand-offs would cost more than the ops.
  auto worth_sharing = [this](const std::deque<std::pair<int, FrameRun::Iteration*>>& ready) {
    const size_t n = std::min<size_t>(ready.size(), 9);
    for (size_t i = 1; i < n; ++i) {
      const Step& s = steps_[static_cast<size_t>(ready[i].first)];
      if (s.flow == Flow::kNone && s.kernel != nullptr && !s.kernel->IsCheap()) return true;
    }
    return false;
  };

  // Takes ready steps until the run is finished (or failed). Kernels run outside the lock, so
  // several workers compute independent ops (and iterations) at once.
  auto work = [this, resources, control_step, worth_sharing, kMaxSteps](const std::shared_ptr<Shared>& shared) {
    Shared& st = *shared;
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
        continue;
      }
      const Step& s = steps_[static_cast<size_t>(k)];
      const bool dead = it->dead_input[static_cast<size_t>(k)] != 0;
      Status result;
      if (s.flow == Flow::kNone && !dead) {
        ++st.in_flight;
        lock.unlock();
        result = RunStep(s, it->slots, resources, /*parallel=*/true);
        std::vector<Tensor> outs(static_cast<size_t>(s.num_outputs));
        if (result.ok()) {
          for (int i = 0; i < s.num_outputs; ++i) outs[static_cast<size_t>(i)] = it->slots[static_cast<size_t>(s.first_output + i)];
        }
        lock.lock();
        --st.in_flight;
        if (result.ok()) st.run.Finish(k, it, outs, std::vector<bool>(static_cast<size_t>(s.num_outputs), false));
      } else {
        result = control_step(k, it, dead);
      }
      if (!result.ok() && st.error.ok()) st.error = result;
      // This thread takes the next ready step itself: wake the others only for more than that
      // (a loop's chain of steps then stays on one thread without wake-ups), or at the end.
      if (st.Finished() || worth_sharing(st.run.ready)) {
        st.wake.store(true, std::memory_order_release);
        st.cv.notify_all();
      }
    }
  };

  if (pool != nullptr && pool->size() > 0 && frames_share_pool_) {
    for (int i = 0; i < pool->size(); ++i) pool->Schedule([sh, work] { work(sh); });
  }
  work(sh);
  // Helpers may still be leaving work(); they hold sh and touch nothing else.
  std::lock_guard lock(sh->mu);
  GRAFT_RETURN_IF_ERROR(sh->error);
  for (size_t i = 0; i < fetch_slots_.size(); ++i) {
    int slot = fetch_slots_[i];
    if (top->dead_slot[static_cast<size_t>(slot)] || !top->slots[static_cast<size_t>(slot)].valid()) {
      int producer = slot_producer_[static_cast<size_t>(slot)];
      std::string what = producer >= 0 ? Where(*steps_[static_cast<size_t>(producer)].node) : std::string("a feed");
      return errors::InvalidArgument("the fetched output of ", what, " has no value: it is on an untaken branch");
    }
    root_slots[static_cast<size_t>(slot)] = top->slots[static_cast<size_t>(slot)];
  }
  if (stats) {
    stats->nodes_run = sh->steps_run;
    stats->peak_bytes = -1;  // not measured by the frame engine
  }
  return Status::Ok();
}

}  // namespace graft
