// CollectiveTransport: how the collective ops (CollectiveReduceV2, CollectiveGatherV2,
// CollectiveBcastSendV2/RecvV2) reach the other processes of a job. One per process, installed
// by the library's composition root (MPI, through a module loaded on first use: kernels/mpi/);
// core only defines the interface, so it neither links nor knows MPI.
//
// The interface is non-blocking point-to-point messages matched by (peer, tag), in order per
// (peer, tag) pair, as MPI's are. The collective kernels build their algorithms on it and wait
// with their own deadline, so a peer that never answers fails the op instead of hanging it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <climits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace graft {

class CancellationFlag;  // run_control.h

// What precedes a tensor's bytes between processes: its dtype and dims, and what the message
// belongs to (a collective's merge and final op; the run of an edge's message). Fixed size.
struct TensorHeader {
  static constexpr int kMaxRank = 60;
  static constexpr int64_t kMagic = 0x4752414654484452;  // "GRAFTHDR": tells a header from stray bytes
  int64_t magic = kMagic;
  int64_t dtype = 0;
  int64_t extra = 0;  // a reduce's merge and final op
  int64_t step = 0;   // an edge's message: the run it belongs to
  int64_t rank = 0;
  int64_t dims[kMaxRank] = {};

  // Fails for a tensor of more than kMaxRank dimensions.
  static Status Of(const Tensor& t, int64_t extra, TensorHeader* out);
  std::string Describe() const;  // "float32[2,3]"
};

class CollectiveTransport {
 public:
  static constexpr int kAnySource = -1;

  // Messages travel on three channels (MPI communicators of their own), so that tags of one
  // kind never match another's: the collective ops' (tagged by instance key), the tensors of
  // edges between the partitions of a graph (tagged by edge and run), and the cluster
  // session's requests and replies.
  enum Channel : int { kCollectives = 0, kTensors = 1, kControl = 2 };

  // One posted message. Started by Send/Recv, finished by Test (done) or Cancel.
  struct Request {
    uint64_t handle = 0;  // the transport's own (an MPI_Request)
    bool active = false;
    bool is_recv = false;
    int peer = -1;        // as posted (kAnySource for a receive from anyone)
    int source = -1;      // for a finished receive: who sent it
    size_t bytes = 0;     // for a finished receive: how many bytes came
    bool truncated = false;  // a finished receive: the message was longer than the buffer (and is gone)
  };

  virtual ~CollectiveTransport() = default;

  // Joins the job this process was started in (MPI_Init_thread unless the host initialised
  // MPI itself). Idempotent and thread-safe; fails when the transport is not available (no MPI
  // module) with a message saying why.
  virtual Status Init() = 0;
  // After a successful Init.
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int max_tag() const = 0;  // tags are 0..max_tag
  // Posts a message of bytes (at most kMaxMessageBytes) to/from peer. The buffer must stay
  // valid until the request finishes (or, after a failed wait, is handed to Abandon).
  virtual Status Send(const void* data, size_t bytes, int peer, int tag, Request* out, Channel channel = kCollectives) = 0;
  virtual Status Recv(void* data, size_t bytes, int peer, int tag, Request* out, Channel channel = kCollectives) = 0;
  // Sets *done when r finished (and fills source and bytes for a receive).
  virtual Status Test(Request& r, bool* done) = 0;
  // Cancels a receive that has not finished; a send cannot be cancelled (see Abandon).
  virtual void CancelRecv(Request& r) = 0;
  virtual Status Barrier() = 0;
  // Leaves the job (MPI_Finalize when Graft initialised MPI); later calls fail.
  virtual Status Finalize() = 0;

  static constexpr size_t kMaxMessageBytes = size_t{1} << 30;

  // How long a wait may last and what stops it.
  struct WaitOptions {
    const CancellationFlag* cancellation = nullptr;
    int64_t deadline_ns = INT64_MAX;  // CLOCK_MONOTONIC (RunControl's clock)
    double timeout_s = 0;             // for the message
    std::string what;                 // "instance_key 7", "edge 'x:0' of run 12": for messages
    int max_pause_us = 1000;          // the longest sleep between polls
    bool allow_truncated = false;     // a receive of a longer message is no error (it is gone)
  };
  // Polls requests [first, last) until all finish: spinning first (messages between processes
  // of one machine take microseconds), then backing off to at most 1 ms a poll. kCancelled or
  // kDeadlineExceeded naming the peer it waits for; the requests are left as they are (the
  // caller cancels receives and abandons sends).
  Status Wait(std::vector<Request>& reqs, size_t first, size_t last, const WaitOptions& options);

  // The process's transport, or nullptr when none is installed. Install is called once, by the
  // composition root; both are thread-safe.
  static CollectiveTransport* Get();
  static void Install(std::unique_ptr<CollectiveTransport> transport);

  // After a collective fails (a timeout, a peer's mismatched tensor, a cancelled run), messages
  // of that instance may still be in flight and would match a later one: like TensorFlow's
  // collective executor, the process's collectives are then aborted, every later one failing
  // with the first error. Aborted() returns OK or that error.
  Status Aborted() const;
  void Abort(const Status& why);
  // Keeps the buffers of requests that could not finish (sends to a peer that stopped
  // answering) alive while any of them is still active, so the transport never reads or writes
  // freed memory. Each call also lets go of earlier ones whose requests have finished since.
  void Abandon(std::vector<Request> requests, std::shared_ptr<void> buffers);

  // Ids of cluster sessions' runs, unique in the process (so that a run never takes what an
  // earlier session's runs left on an edge for its own).
  int64_t NextStep() { return next_step_.fetch_add(1, std::memory_order_relaxed) + 1; }

  // A tensor between processes on the tensors channel: its header (dtype, dims, the run it
  // belongs to), then its bytes in messages of at most kMaxMessageBytes. PostTensor posts them
  // without waiting (the requests go to *reqs; header and t must stay alive until they finish).
  Status PostTensor(const Tensor& t, TensorHeader* header, int peer, int tag, std::vector<Request>* reqs);
  // Receives the tensor of run `step` that peer posts on tag. What a failed run left behind is
  // taken and dropped: tensors of earlier runs, and the bytes of one whose header was taken. A
  // later run's tensor fails this run (kCancelled: the sender gave up on it) and is kept for
  // its own run.
  // allocate makes the tensor for a header (the caller's dtype and shape checks go there); when
  // it fails, the bytes are taken and dropped before its error returns, so the next run finds
  // the edge clean. A wait that fails cancels what it posted.
  Status RecvTensor(int peer, int tag, int64_t step, const WaitOptions& options,
                    const std::function<Status(const TensorHeader&, Tensor*)>& allocate, Tensor* out);

 protected:
  // For Finalize: the abandoned requests still active (receives among them are cancelled).
  std::vector<Request> TakeAbandoned();

 private:
  struct Abandoned {
    std::vector<Request> requests;
    std::shared_ptr<void> buffers;
  };
  // Takes and drops the messages of bytes that peer posts on tag (a tensor's body).
  Status Drain(int peer, int tag, size_t bytes, const WaitOptions& options);

  // A tensor of a later run than the one that received it, kept for its run (per peer, tag).
  struct Ahead {
    TensorHeader header;
    Tensor tensor;
  };

  std::atomic<int64_t> next_step_{0};
  mutable std::mutex mu_;
  Status aborted_;
  std::vector<Abandoned> abandoned_;
  std::map<std::pair<int, int>, Ahead> ahead_;
};

// One run of a cluster session in this process (RunControl::cluster): its id, and the sends
// that its _GraftSend kernels posted without waiting, which the session waits for once the
// local part of the run is done (their buffers live until then).
struct ClusterRun {
  int64_t step_id = 0;
  std::mutex mu;
  std::vector<CollectiveTransport::Request> sends;
  std::vector<std::shared_ptr<void>> buffers;
};

// How long collectives and a cluster session's runs wait when nothing else says:
// $GRAFT_COLLECTIVE_TIMEOUT seconds, else 300 s (long enough for any all-reduce, short enough
// that a job whose peer died does not wait forever).
double CollectiveTimeoutSeconds();

// The tag of the messages of the edge from output `index` of the node with id `node_id` (or
// its control edge) to rank `dst`: the same on every process of a job whose processes built
// the same graph. Fails naming the limit when the edge does not fit in MPI's 31 bits of tag:
// 2^20 nodes, outputs 0..30 (31 is the control edge's), 64 ranks.
inline constexpr int kControlEdge = 31;
Status EdgeTag(int64_t node_id, int index, bool control, int dst, int max_tag, int* out);

}  // namespace graft
