#include "core/runtime/collective_transport.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "core/runtime/run_control.h"
#include "core/str_cat.h"

namespace graft {

namespace {
// Set once by the composition root and never freed (the transport may be in use at exit).
std::atomic<CollectiveTransport*> g_transport{nullptr};
}  // namespace

CollectiveTransport* CollectiveTransport::Get() { return g_transport.load(std::memory_order_acquire); }

void CollectiveTransport::Install(std::unique_ptr<CollectiveTransport> transport) {
  CollectiveTransport* expected = nullptr;
  if (g_transport.compare_exchange_strong(expected, transport.get(), std::memory_order_acq_rel)) {
    (void)transport.release();
  }
}

Status CollectiveTransport::Wait(std::vector<Request>& reqs, size_t first, size_t last, const WaitOptions& options) {
  int polls = 0;
  auto pause = std::chrono::microseconds(1);
  while (true) {
    const Request* pending = nullptr;
    for (size_t i = first; i < last; ++i) {
      if (!reqs[i].active) continue;
      bool done = false;
      GRAFT_RETURN_IF_ERROR(Test(reqs[i], &done));
      if (!done && pending == nullptr) pending = &reqs[i];
    }
    if (pending == nullptr) return Status::Ok();
    const std::string peer = pending->peer < 0 ? std::string("any rank") : StrCat("rank ", pending->peer);
    if (options.cancellation != nullptr && options.cancellation->cancelled()) {
      return errors::Cancelled("cancelled while waiting for ", peer, " (", options.what, ")");
    }
    if (RunControl::CoarseNowNs() >= options.deadline_ns) {
      return errors::DeadlineExceeded("timed out after ", options.timeout_s, " s waiting for ", peer, " (",
                                      options.what, ")");
    }
    if (++polls < 2000) {
      sched_yield();
    } else {
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(options.max_pause_us));
    }
  }
}

Status CollectiveTransport::Aborted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return aborted_;
}

void CollectiveTransport::Abort(const Status& why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (aborted_.ok()) aborted_ = why;
}

void CollectiveTransport::Abandon(std::vector<Request> requests, std::shared_ptr<void> buffers) {
  std::lock_guard<std::mutex> lock(mu_);
  for (Request& r : requests) {
    if (r.active) abandoned_.push_back(r);
  }
  abandoned_buffers_.push_back(std::move(buffers));
}

std::vector<CollectiveTransport::Request> CollectiveTransport::TakeAbandoned() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Request> out = std::move(abandoned_);
  abandoned_.clear();
  return out;
}

Status TensorHeader::Of(const Tensor& t, int64_t extra, TensorHeader* out) {
  if (t.rank() > kMaxRank) {
    return errors::InvalidArgument("a tensor sent to another process has at most ", kMaxRank, " dimensions, not ",
                                   t.rank());
  }
  out->dtype = static_cast<int64_t>(t.dtype());
  out->extra = extra;
  out->rank = t.rank();
  for (int i = 0; i < t.rank(); ++i) out->dims[i] = t.dim(i);
  return Status::Ok();
}

std::string TensorHeader::Describe() const {
  const char* name = DTypeNameOrNull(static_cast<DType>(dtype));
  std::string s = StrCat(name != nullptr ? name : "dtype?", "[");
  for (int64_t i = 0; i < rank && i < kMaxRank; ++i) s += StrCat(i ? "," : "", dims[i]);
  return s + "]";
}

Status EdgeTag(int64_t node_id, int index, int dst, int max_tag, int* out) {
  if (max_tag < 0x7fffffff) {
    return errors::Unimplemented("this MPI's message tags go up to ", max_tag,
                                 "; a cluster session needs 2^31 - 1 (Open MPI's)");
  }
  if (node_id < 0 || node_id >= (int64_t{1} << 20)) {
    return errors::Unimplemented("a cluster session's graph has at most 2^20 ops whose outputs cross processes; op id ",
                                 node_id, " is past it");
  }
  if (index < 0 || index > kControlEdge) {
    return errors::Unimplemented("a cluster session sends outputs 0..30 of an op to other processes, not output ",
                                 index);
  }
  if (dst < 0 || dst >= 64) return errors::Unimplemented("a cluster session has at most 64 processes");
  *out = static_cast<int>((node_id << 11) | (int64_t{index} << 6) | dst);
  return Status::Ok();
}

}  // namespace graft
