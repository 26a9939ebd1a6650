// Executor: a graph prepared once for one (feeds, fetches, targets) — the pruned nodes in
// dependency order, their kernels and devices, where each input comes from, when each value
// dies, and what may run in parallel — and the dataflow engine that runs it: in creation order
// on the calling thread, or from a ready queue shared with the pool's workers. Graphs with
// TensorFlow 1 control flow run on the frame engine instead (frame_executor.h). An executor is
// immutable, so many threads may run it at once; everything a run changes lives in that run's
// own state.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/runtime/device.h"
#include "core/runtime/device_set.h"
#include "core/runtime/kernel.h"
#include "core/runtime/rewrites.h"
#include "core/runtime/run_control.h"
#include "core/runtime/resource_mgr.h"
#include "core/runtime/thread_pool.h"

namespace graft {

struct RunStats {
  int64_t peak_bytes = 0;  // the most bytes of tensor values alive at once during the run
  int64_t nodes_run = 0;
};

class FrameExecutor;

class Executor {
 public:
  // Prepares graph for the given feeds, fetches and targets, placing each op on one of
  // devices (which must outlive the executor). Errors name the tensor or op.
  // policy, when given, replaces the device set's placement policy (a function body's
  // executor places ops by its call's device).
  static Status Create(const Graph& graph, const std::vector<Output>& feeds, const std::vector<Output>& fetches,
                       const std::vector<const Node*>& targets, const DeviceSet& devices,
                       const RewriteOptions& rewrites, std::unique_ptr<Executor>* out,
                       const PlacementPolicy* policy = nullptr);
  ~Executor();

  // The device step k's op was placed on (for tests and tools), by op name; nullptr if the op
  // does not run.
  const Device* PlacementOf(const std::string& op_name) const;

  // Runs with feed values (in the order of the feeds); fills one tensor per fetch. control,
  // when given, may stop the run before any kernel (run_control.h).
  Status Run(const std::vector<Tensor>& feed_values, ResourceMgr* resources, ThreadPool* pool,
             std::vector<Tensor>* fetch_values, RunStats* stats, const RunControl* control = nullptr) const;

  size_t num_nodes() const { return steps_.size(); }

 private:
  friend class FrameExecutor;  // runs the steps of graphs with TensorFlow 1 control flow

  Executor() = default;

  struct Step {
    const Node* node = nullptr;
    std::unique_ptr<OpKernel> kernel;
    Device* device = nullptr;         // where the kernel runs
    std::vector<int> inputs;          // slot per input
    std::vector<uint8_t> transfer;    // input i lives elsewhere than where the kernel reads it: copied
    std::vector<uint8_t> host_input;  // input i is read in host memory (OpKernel::HostMemoryInput)
    bool any_transfer = false;
    std::vector<bool> deref;              // input i reads a reference's current value
    bool any_deref = false;
    std::vector<uint8_t> last_use;        // input i's slot dies after this step (sequential order)
    std::vector<uint8_t> sole_consumer;   // this step is the only consumer of input i's slot
    bool is_const = false;            // a Const: its value is resident, not made by the run
    int first_output = 0;             // outputs occupy slots [first_output, first_output + n)
    int num_outputs = 0;
    std::vector<int> successors;      // steps that wait on this one (data or control)
    int num_predecessors = 0;
  };

  struct ParallelRun;
  static void Work(const std::shared_ptr<ParallelRun>& st);
  Status RunSequential(std::vector<Tensor>& slots, ResourceMgr* resources, RunStats* stats,
                       const RunControl* control) const;
  Status RunParallel(std::vector<Tensor>& slots, ResourceMgr* resources, ThreadPool* pool, RunStats* stats,
                     const RunControl* control) const;
  // forward, when given, says which inputs the kernel may overwrite in place (instead of the
  // step's static sole_consumer / last_use).
  Status RunStep(const Step& step, std::vector<Tensor>& slots, ResourceMgr* resources, const RunControl* control,
                 bool parallel, const std::vector<uint8_t>* forward = nullptr) const;

  // The fused nodes of the plan (fusion.h): declared before steps_, whose kernels point at
  // them, so that it is destroyed after them.
  std::shared_ptr<Graph> scratch_;
  std::vector<Step> steps_;
  std::vector<Device*> slot_device_;   // where each slot's value lives (fed values: the CPU)
  Device* host_ = nullptr;             // the CPU device, where host-memory inputs are read
  int num_slots_ = 0;
  std::vector<int> feed_slots_;
  std::vector<DType> feed_types_;
  std::vector<PartialShape> feed_shapes_;
  std::vector<std::string> feed_names_;
  std::vector<int> fetch_slots_;
  std::vector<bool> keep_slot_;        // fetched or fed: never released during the run
  std::vector<int> consumers_;         // number of consuming inputs per slot
  std::vector<int> initially_ready_;   // steps with no predecessors
  std::vector<bool> const_slot_;       // produced by a Const
  // A constant's copy on another device, made by the first run that needs it and kept (by
  // slot and device): a graph's constants (a frozen model's weights) cross to a device once.
  Status ConstantOn(int slot, const Tensor& value, Device* from, Device* to, Tensor* out) const;
  mutable std::mutex const_copies_mu_;
  mutable std::map<std::pair<int, const Device*>, Tensor> const_copies_;
  bool has_control_flow_ = false;      // runs on the frame engine
  bool chain_like_ = false;            // nearly every step on one path: always run sequentially
  bool uses_all_cores_ = false;        // some kernel's UsesAllCores: always run sequentially
  std::unique_ptr<FrameExecutor> frames_;  // the frame engine, when has_control_flow_
  int64_t const_bytes_ = 0;            // bytes of the constants the run reads
};

}  // namespace graft
