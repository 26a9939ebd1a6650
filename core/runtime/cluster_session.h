// ClusterSession: one graph run across the processes of an MPI job, TensorFlow's /job:/task:
// placement. Every process builds the same graph (the same program does) and makes a cluster
// session over it with the same ClusterSpec; task 0 of the first job (rank 0) is the client,
// which runs it, and the others serve its runs (Serve) until the client's session goes.
//
// Each op runs on the task its device string names (/job:ps/task:0; none: the client), and an op
// that takes a resource (a variable) runs where the resource is. For a run, every process works
// out the same plan from the graph and the run's feeds, fetches and targets: which ops run
// where, and the edges that cross processes, each of which becomes a _GraftSend in the
// producer's process and a _GraftRecv in the consumer's (messages tagged by EdgeTag and marked
// with the run's id). Each process copies the ops it runs into a graph of its own, once, and
// runs its part with an ordinary Session, so variables keep their values between runs. Feeds
// go from the client to the processes that consume them; fetches come back to it.
//
// Failures: a process whose part fails tells the client, which cancels the run everywhere and
// fails it with that error, naming the task ("on /job:worker/task:1: ..."); a process that does
// not answer fails the run after the deadline (the run's, else $GRAFT_COLLECTIVE_TIMEOUT or 300
// s) instead of hanging. A cluster session runs one step at a time.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <thread>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/graph.h"
#include "core/runtime/cluster_spec.h"
#include "core/runtime/collective_transport.h"
#include "core/runtime/run_control.h"
#include "core/runtime/session.h"

namespace graft {

class ClusterSession {
 public:
  // Joins the job (the transport's Init); fails when the job's size is not the spec's number
  // of tasks.
  static Status Create(std::shared_ptr<const Graph> graph, const ClusterSpec& spec, const SessionOptions& options,
                       std::unique_ptr<ClusterSession>* out);
  // The client tells every other process to stop serving.
  ~ClusterSession();

  bool is_client() const { return rank_ == 0; }
  int rank() const { return rank_; }
  const ClusterSpec& spec() const { return spec_; }

  // The client's run (Session::Run's contract). control may be null.
  Status Run(const std::vector<std::pair<Output, Tensor>>& feeds, const std::vector<Output>& fetches,
             const std::vector<const Node*>& targets, std::vector<Tensor>* outputs, const RunControl* control);
  // The other processes: runs their parts of the client's runs until the client's session is
  // freed.
  Status Serve();

 private:
  // What one process does in one kind of run (the same feeds, fetches and targets).
  struct Plan {
    std::vector<Output> local_feeds;   // in the local graph, for ...
    std::vector<int> local_feed_of;    // ... the run's feed i
    std::vector<int> local_feed_tag;   // a worker: the tag the client sends that feed with
    std::vector<Output> local_fetches;
    std::vector<int> fetch_slot;       // the client: fetch i is local_fetches[slot], or -1 - feed index
    std::vector<const Node*> local_targets;
    struct FeedSend {
      int feed = 0, rank = 0, tag = 0;
    };
    std::vector<FeedSend> feed_sends;  // the client: fed values the others consume
    std::vector<int> participants;     // the client: the other ranks with a part
  };

  ClusterSession(std::shared_ptr<const Graph> graph, const ClusterSpec& spec, CollectiveTransport* transport,
                 int rank);
  Status BuildPlan(const std::vector<Output>& feeds, const std::vector<Output>& fetches,
                   const std::vector<const Node*>& targets, Plan* plan);
  Status RankOfNode(const Node* node, int* rank);
  Status LocalCopy(const Node* node, Node** out);
  Status RecvNode(const Output& from, bool control, Node** out);
  Status SendNode(const Output& what, int dst, bool control, Node** out);
  Status RunLocal(const Plan& plan, std::vector<std::pair<Output, Tensor>> feeds, ClusterRun* run,
                  const CancellationFlag* cancellation, int64_t deadline_ns, std::vector<Tensor>* outputs);
  Status WaitForSends(ClusterRun* run, int64_t deadline_ns);

  std::shared_ptr<const Graph> graph_;
  ClusterSpec spec_;
  CollectiveTransport* transport_;
  const int rank_;
  double timeout_s_;

  // Runs the local part of a run while the calling thread watches the other processes: one
  // thread for the session's life (starting one per run cost more than the run).
  class Helper {
   public:
    Helper();
    ~Helper();
    // Runs job on the helper thread; done is set when it returns.
    void Start(std::function<void()> job, std::atomic<bool>* done);

   private:
    std::mutex mu_;
    std::condition_variable cv_;
    std::function<void()> job_;
    std::atomic<bool>* done_ = nullptr;
    bool stop_ = false;
    std::thread thread_;
  };

  std::shared_ptr<Graph> local_graph_;  // the ops this process runs, and the edges' ends
  std::unique_ptr<Session> local_;
  Helper helper_;
  std::mutex mu_;                       // one run at a time; guards everything below
  std::unordered_map<int64_t, int> ranks_;         // original node id -> rank
  std::unordered_map<int64_t, Node*> copies_;      // original node id -> local copy
  std::map<std::string, Node*> edge_nodes_;        // sends and receives by name
  std::map<std::string, std::shared_ptr<Plan>> plans_;
  int64_t plans_version_ = -1;
};

}  // namespace graft
