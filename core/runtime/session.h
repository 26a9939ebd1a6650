// Session: runs a graph. It keeps the state that lives across runs (variables), a cache of
// executors prepared per (feeds, fetches, targets), and a thread pool. Run may be called
// from many threads at once.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/runtime/executor.h"
#include "core/runtime/thread_pool.h"

namespace graft {

struct SessionOptions {
  // 0: one per hardware thread (at most kMaxThreads); 1: every run on the calling thread.
  int num_threads = 0;
  RewriteOptions rewrites;
  PlacementPolicy placement;
  // > 0: the tensor memory the session's runs may hold at once (their kernels' outputs, alive
  // until their last reader, or until the caller frees a fetched one); an allocation past it
  // fails its op with kResourceExhausted. 0: no cap.
  int64_t max_memory_bytes = 0;
};

class Session {
 public:
  // The most threads a session runs on (the calling thread and ThreadPool::kMaxThreads - 1
  // workers).
  static constexpr int kMaxThreads = ThreadPool::kMaxThreads;

  // Starts the session's threads; check init_status() before using it.
  Session(const Graph* graph, const SessionOptions& options);
  ~Session();

  // Not OK when the options were refused or the system would not start the session's threads
  // (those started are stopped again); runs then return this error.
  const Status& init_status() const { return init_status_; }

  // control, when given, may stop the run before any kernel (run_control.h).
  Status Run(const std::vector<std::pair<Output, Tensor>>& feeds, const std::vector<Output>& fetches,
             const std::vector<const Node*>& targets, std::vector<Tensor>* outputs, RunStats* stats = nullptr,
             bool track_memory = false, const RunControl* control = nullptr);

  // A run prepared once for fixed feeds, fetches and targets (TensorFlow's MakeCallable):
  // RunCallable then only runs kernels, without looking the run up. The executor stays
  // valid while the session lives.
  Status MakeCallable(const std::vector<Output>& feeds, const std::vector<Output>& fetches,
                      const std::vector<const Node*>& targets, std::shared_ptr<const Executor>* out);
  Status RunCallable(const Executor& exe, const std::vector<Tensor>& feed_values, std::vector<Tensor>* outputs,
                     RunStats* stats = nullptr, bool track_memory = false, const RunControl* control = nullptr);

  ResourceMgr& resources() { return resources_; }
  // The session's memory account (under max_memory_bytes), or nullptr without a cap.
  const MemoryAccount* memory() const { return memory_.get(); }
  const Graph& graph() const { return *graph_; }
  const DeviceSet& devices() const { return *devices_; }
  int num_threads() const { return pool_ ? pool_->size() + 1 : 1; }

 private:
  Status Prepare(const std::vector<Output>& feeds, const std::vector<Output>& fetches,
                 const std::vector<const Node*>& targets, std::shared_ptr<const Executor>* out);

  const Graph* graph_;
  RewriteOptions rewrites_;
  std::unique_ptr<DeviceSet> devices_;  // the CPU and the registered device types' devices
  ResourceMgr resources_;
  std::unique_ptr<ThreadPool> pool_;
  std::shared_ptr<MemoryAccount> memory_;  // shared with the buffers charged to it
  Status init_status_;
  std::mutex mu_;  // guards cache_
  struct Cached {
    std::shared_ptr<const Executor> exe;
    int64_t restrictions_version;  // the graph's feed/fetch restrictions it was checked against
  };
  std::map<std::string, Cached> cache_;
};

}  // namespace graft
