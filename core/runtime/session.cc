#include "core/runtime/session.h"

#include <algorithm>
#include <thread>

namespace graft {

Session::Session(const Graph* graph, const SessionOptions& options)
    : graph_(graph), rewrites_(options.rewrites), devices_(DeviceSet::FromRegistry()) {
  devices_->set_policy(options.placement);
  if (options.num_threads < 0 || options.num_threads > kMaxThreads) {
    init_status_ = errors::InvalidArgument("num_threads is ", options.num_threads, "; a session runs on 0 (one per core) to ",
                                           kMaxThreads, " threads");
    return;
  }
  if (options.max_memory_bytes < 0) {
    init_status_ = errors::InvalidArgument("max_memory_bytes is ", options.max_memory_bytes, "; 0 means no cap");
    return;
  }
  if (options.max_memory_bytes > 0) memory_ = std::make_shared<MemoryAccount>("the session's", options.max_memory_bytes);
  int n = options.num_threads;
  if (n == 0) n = std::min(static_cast<int>(std::thread::hardware_concurrency()), kMaxThreads);
  // The calling thread works too: a run on n threads needs n - 1 workers.
  if (n > 1) init_status_ = ThreadPool::Create(n - 1, &pool_);
}

Session::~Session() = default;

Status Session::Prepare(const std::vector<Output>& feeds, const std::vector<Output>& fetches,
                        const std::vector<const Node*>& targets, std::shared_ptr<const Executor>* out) {
  // The key names every feed, fetch and target in order.
  // Built by appending (no streams): this runs on every call.
  std::string key;
  auto add_tensor = [&key](const Output& t) {
    key.append(t.node->name());
    key.push_back(':');
    key.append(std::to_string(t.index));
    key.push_back(',');
  };
  for (const Output& f : feeds) add_tensor(f);
  key.push_back('|');
  for (const Output& f : fetches) add_tensor(f);
  key.push_back('|');
  for (const Node* t : targets) {
    key.append(t->name());
    key.push_back(',');
  }
  {
    std::lock_guard lock(mu_);
    auto it = cache_.find(key);
    if (it != cache_.end() && it->second.restrictions_version == graph_->restrictions_version()) {
      *out = it->second.exe;
      return Status::Ok();
    }
  }
  int64_t version = graph_->restrictions_version();
  std::unique_ptr<Executor> exe;
  GRAFT_RETURN_IF_ERROR(Executor::Create(*graph_, feeds, fetches, targets, *devices_, rewrites_, &exe));
  std::shared_ptr<const Executor> shared(std::move(exe));
  std::lock_guard lock(mu_);
  cache_[key] = Cached{shared, version};
  *out = shared;
  return Status::Ok();
}

Status Session::MakeCallable(const std::vector<Output>& feeds, const std::vector<Output>& fetches,
                             const std::vector<const Node*>& targets, std::shared_ptr<const Executor>* out) {
  for (const Output& t : feeds) {
    if (t.node == nullptr || t.node->graph() != graph_) return errors::InvalidArgument("a feed is not a tensor of the graph");
  }
  for (const Output& f : fetches) {
    if (f.node == nullptr || f.node->graph() != graph_) return errors::InvalidArgument("a fetch is not a tensor of the graph");
  }
  for (const Node* t : targets) {
    if (t == nullptr || t->graph() != graph_) return errors::InvalidArgument("a target is not an op of the graph");
  }
  if (fetches.empty() && targets.empty()) return errors::InvalidArgument("nothing to run: no fetches and no targets");
  return Prepare(feeds, fetches, targets, out);
}

Status Session::RunCallable(const Executor& exe, const std::vector<Tensor>& feed_values,
                            std::vector<Tensor>* outputs, RunStats* stats, bool track_memory,
                            const RunControl* control) {
  GRAFT_RETURN_IF_ERROR(init_status_);
  RunControl with_memory;
  if (memory_ != nullptr) {
    // The run's kernels allocate from the session's account, whatever else the control says.
    if (control != nullptr) with_memory = *control;
    with_memory.memory = memory_.get();
    control = &with_memory;
  }
  GRAFT_RETURN_IF_ERROR(
      exe.Run(feed_values, &resources_, pool_.get(), outputs, track_memory ? stats : nullptr, control));
  if (stats) stats->nodes_run = static_cast<int64_t>(exe.num_nodes());
  return Status::Ok();
}

Status Session::Run(const std::vector<std::pair<Output, Tensor>>& feeds, const std::vector<Output>& fetches,
                    const std::vector<const Node*>& targets, std::vector<Tensor>* outputs, RunStats* stats,
                    bool track_memory, const RunControl* control) {
  std::vector<Output> feed_tensors;
  std::vector<Tensor> feed_values;
  for (const auto& [t, v] : feeds) {
    feed_tensors.push_back(t);
    feed_values.push_back(v);
  }
  std::shared_ptr<const Executor> exe;
  GRAFT_RETURN_IF_ERROR(MakeCallable(feed_tensors, fetches, targets, &exe));
  return RunCallable(*exe, feed_values, outputs, stats, track_memory, control);
}

}  // namespace graft
