// FrameExecutor: the frame engine, which runs an Executor's plan when the graph has
// TensorFlow 1 control flow (Switch, Merge, Enter, Exit, NextIteration, LoopCond). Prepare
// works out the static frame of every step and checks the frame structure by TensorFlow's
// rules; Run runs the plan with values tagged by frame instance and iteration (see
// frame_executor.cc). Like the Executor that owns it, it is immutable once prepared.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/runtime/executor.h"

namespace graft {

class FrameExecutor {
 public:
  // TensorFlow 1 control-flow ops, which the frame engine runs itself (they have no kernels).
  enum class Flow { kNone, kSwitch, kMerge, kEnter, kExit, kNextIteration, kLoopCond };

  // Prepares the frame engine for exe, whose steps, slots, kernels and fetches are made:
  // step_of maps each node to its step, slot_of_fed each fed tensor's name to its slot. A
  // malformed frame structure is an error naming the op. exe must outlive *out.
  static Status Prepare(const Executor& exe, const std::unordered_map<const Node*, int>& step_of,
                        const std::unordered_map<std::string, int>& slot_of_fed,
                        std::unique_ptr<FrameExecutor>* out);

  // Runs the plan: root_slots holds the fed values and gets the fetched ones.
  Status Run(std::vector<Tensor>& root_slots, ResourceMgr* resources, ThreadPool* pool, RunStats* stats,
             const RunControl* control) const;

 private:
  using Step = Executor::Step;

  // A step's place in the frame structure.
  struct FrameStep {
    Flow flow = Flow::kNone;
    int frame = 0;                    // static frame the step runs in (0: the root)
    int output_frame = 0;             // frame its outputs live in (Enter: the child; Exit: the parent)
    bool is_constant = false;         // Enter: the value is the same in every iteration
    std::vector<bool> back_edge;      // Merge: input i comes from a NextIteration
    int pending_edges = 0;            // data inputs from steps + control inputs
    std::vector<int> control_successors;
  };
  struct FrameRun;

  explicit FrameExecutor(const Executor& exe) : exe_(exe) {}
  Status Init(const std::unordered_map<const Node*, int>& step_of,
              const std::unordered_map<std::string, int>& slot_of_fed);

  const Executor& exe_;
  std::vector<FrameStep> frame_steps_;  // one per step of exe_
  bool share_pool_ = false;             // the pool's workers may join a run
  // Static frames: frame 0 is the root; an Enter's frame_name names a child.
  std::vector<int> frame_parent_;      // parent of each (-1 for the root)
  std::vector<std::string> frame_name_;
  std::vector<int> frame_enters_;      // Enter steps into each frame: a frame instance is
                                       // complete once that many have run
  std::vector<int> frame_parallel_;    // iterations that may run at once (Enter's parallel_iterations)
  std::vector<std::vector<int>> frame_roots_;  // steps of each frame that wait on nothing
  std::vector<int> initial_pending_;   // pending_edges of every step, for a new iteration
  std::vector<std::vector<std::pair<int, int>>> slot_consumers_;  // (step, input) reading each slot
  std::vector<int> slot_readers_;      // slot_consumers_[slot].size()
  std::vector<int> slot_producer_;     // step producing each slot (-1: fed)
  int max_merge_inputs_ = 0;
};

}  // namespace graft
