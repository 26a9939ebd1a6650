#include "core/runtime/collective_transport.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <span>
#include <thread>

#include "core/runtime/run_control.h"
#include "core/unload.h"
#include "core/str_cat.h"

namespace graft {

namespace {
// Set once by the composition root; freed only when libgraft is unloaded (the transport may
// be in use at exit).
std::atomic<CollectiveTransport*> g_transport{nullptr};
}  // namespace

CollectiveTransport* CollectiveTransport::Get() { return g_transport.load(std::memory_order_acquire); }

void CollectiveTransport::Install(std::unique_ptr<CollectiveTransport> transport) {
  CollectiveTransport* expected = nullptr;
  if (g_transport.compare_exchange_strong(expected, transport.get(), std::memory_order_acq_rel)) {
    (void)DeleteAtUnload(transport.release());  // never at exit; at dlclose (core/unload.h)
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
      if (done && reqs[i].truncated && !options.allow_truncated) {
        return errors::DataLoss("rank ", reqs[i].source, " sent a longer message than ", options.what,
                                " expects: do the processes run the same program?");
      }
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
  // Earlier entries whose requests have all finished are let go (their buffers freed).
  std::vector<Abandoned> earlier;
  {
    std::lock_guard<std::mutex> lock(mu_);
    earlier.swap(abandoned_);
  }
  std::vector<Abandoned> keep;
  for (Abandoned& a : earlier) {
    bool active = false;
    for (Request& r : a.requests) {
      bool done = true;
      if (r.active && !Test(r, &done).ok()) done = true;  // a failed request holds nothing
      if (!done) active = true;
    }
    if (active) keep.push_back(std::move(a));
  }
  bool active = false;
  for (const Request& r : requests) active = active || r.active;
  if (active) keep.push_back(Abandoned{std::move(requests), std::move(buffers)});
  std::lock_guard<std::mutex> lock(mu_);
  for (Abandoned& a : keep) abandoned_.push_back(std::move(a));
}

std::vector<CollectiveTransport::Request> CollectiveTransport::TakeAbandoned() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Request> out;
  for (Abandoned& a : abandoned_) {
    for (Request& r : a.requests) {
      if (r.active) out.push_back(r);
    }
  }
  // The buffers stay (in abandoned_) until the process ends: MPI may still use them.
  return out;
}

Status CollectiveTransport::PostTensor(const Tensor& t, TensorHeader* header, int peer, int tag,
                                       std::vector<Request>* reqs) {
  Request r;
  GRAFT_RETURN_IF_ERROR(Send(header, sizeof(TensorHeader), peer, tag, &r, kTensors));
  reqs->push_back(r);
  const size_t bytes = t.byte_size();
  size_t off = 0;
  do {  // at least one message, empty for an empty tensor: the receiver counts the same way
    const size_t n = std::min(bytes - off, kMaxMessageBytes);
    GRAFT_RETURN_IF_ERROR(Send(static_cast<const char*>(t.raw_data()) + off, n, peer, tag, &r, kTensors));
    reqs->push_back(r);
    off += n;
  } while (off < bytes);
  return Status::Ok();
}

Status CollectiveTransport::Drain(int peer, int tag, size_t bytes, const WaitOptions& options) {
  // Each message is taken into a one-byte buffer: MPI truncates it, and it is gone.
  char sink[1];
  size_t off = 0;
  WaitOptions drain = options;
  drain.allow_truncated = true;
  do {
    std::vector<Request> reqs(1);
    GRAFT_RETURN_IF_ERROR(Recv(sink, sizeof sink, peer, tag, &reqs[0], kTensors));
    Status s = Wait(reqs, 0, 1, drain);
    if (!s.ok()) {
      CancelRecv(reqs[0]);
      return s;
    }
    off += std::min(bytes - off, kMaxMessageBytes);
  } while (off < bytes);
  return Status::Ok();
}

Status CollectiveTransport::RecvTensor(int peer, int tag, int64_t step, const WaitOptions& options,
                                       const std::function<Status(const TensorHeader&, Tensor*)>& allocate,
                                       Tensor* out) {
  auto gone_on = [&](int64_t later) {
    return errors::Cancelled("rank ", peer, " has gone on to run ", later, " (", options.what, "): run ", step,
                             "'s tensor will not come");
  };
  WaitOptions header_wait = options;
  header_wait.allow_truncated = true;  // a stray body piece, dropped below
  // What an earlier call took for this run (a later run's tensor) comes first.
  {
    std::unique_lock<std::mutex> lock(mu_);
    auto it = ahead_.find({peer, tag});
    if (it != ahead_.end() && it->second.header.step <= step) {
      Ahead a = std::move(it->second);
      ahead_.erase(it);
      lock.unlock();
      if (a.header.step == step) {
        Tensor t;
        GRAFT_RETURN_IF_ERROR(allocate(a.header, &t));
        if (t.byte_size() != a.tensor.byte_size()) {
          return errors::Internal("rank ", peer, "'s tensor does not fit (", options.what, ")");
        }
        if (t.byte_size() > 0) std::memcpy(t.raw_data(), a.tensor.raw_data(), t.byte_size());
        *out = std::move(t);
        return Status::Ok();
      }
    } else if (it != ahead_.end()) {
      return gone_on(it->second.header.step);
    }
  }
  while (true) {
    TensorHeader h;
    std::vector<Request> reqs(1);
    GRAFT_RETURN_IF_ERROR(Recv(&h, sizeof h, peer, tag, &reqs[0], kTensors));
    Status s = Wait(reqs, 0, 1, header_wait);
    if (!s.ok()) {
      CancelRecv(reqs[0]);
      return s;
    }
    // Not a header: the bytes of a tensor whose header a failed run took. Dropped.
    if (reqs[0].truncated || reqs[0].bytes != sizeof h || h.magic != TensorHeader::kMagic) continue;
    int64_t n = 0;
    size_t bytes = 0;
    if (h.rank < 0 || h.rank > TensorHeader::kMaxRank || !IsValidDType(static_cast<DType>(h.dtype)) ||
        !FixedSizeByteCount(static_cast<DType>(h.dtype), std::span<const int64_t>(h.dims, static_cast<size_t>(h.rank)),
                            &n, &bytes)
             .ok()) {
      return errors::DataLoss("rank ", peer, " sent a tensor header that makes no sense (", options.what, ")");
    }
    if (h.step < step) {  // left by an earlier run that failed before taking it
      GRAFT_RETURN_IF_ERROR(Drain(peer, tag, bytes, options));
      continue;
    }
    Tensor t;
    const bool later = h.step > step;
    // A later run's tensor: the sender has given up on this run (messages between two ranks
    // keep their order), so this one's never comes. The later one is kept for its run.
    s = later ? Tensor::AllocateUninitialized(static_cast<DType>(h.dtype),
                                              std::span<const int64_t>(h.dims, static_cast<size_t>(h.rank)), &t)
              : allocate(h, &t);
    if (!s.ok()) {
      Status drained = Drain(peer, tag, bytes, options);
      (void)drained;  // the edge may keep the bytes when the drain times out; the next header check drops them
      return s;
    }
    reqs.clear();
    size_t off = 0;
    do {
      const size_t piece = std::min(bytes - off, kMaxMessageBytes);
      Request r;
      s = Recv(static_cast<char*>(t.raw_data()) + off, piece, peer, tag, &r, kTensors);
      if (!s.ok()) break;
      reqs.push_back(r);
      off += piece;
    } while (off < bytes);
    if (s.ok()) s = Wait(reqs, 0, reqs.size(), options);
    if (!s.ok()) {
      for (Request& r : reqs) CancelRecv(r);
      return s;
    }
    if (later) {
      std::lock_guard<std::mutex> lock(mu_);
      ahead_[{peer, tag}] = Ahead{h, std::move(t)};
      return gone_on(h.step);
    }
    *out = std::move(t);
    return Status::Ok();
  }
}

double CollectiveTimeoutSeconds() {
  if (const char* env = std::getenv("GRAFT_COLLECTIVE_TIMEOUT"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (end != env && v > 0 && std::isfinite(v)) return v;
  }
  return 300;
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

Status EdgeTag(int64_t node_id, int index, bool control, int dst, int max_tag, int* out) {
  if (max_tag < 0x7fffffff) {
    return errors::Unimplemented("this MPI's message tags go up to ", max_tag,
                                 "; a cluster session needs 2^31 - 1 (Open MPI's)");
  }
  if (node_id < 0 || node_id >= (int64_t{1} << 20)) {
    return errors::Unimplemented("a cluster session's graph has at most 2^20 ops whose outputs cross processes; op id ",
                                 node_id, " is past it");
  }
  if (control) index = kControlEdge;
  if (index < 0 || index >= kControlEdge + (control ? 1 : 0)) {
    return errors::Unimplemented("a cluster session sends outputs 0..30 of an op to other processes, not output ",
                                 index);
  }
  if (dst < 0 || dst >= 64) return errors::Unimplemented("a cluster session has at most 64 processes");
  *out = static_cast<int>((node_id << 11) | (int64_t{index} << 6) | dst);
  return Status::Ok();
}

}  // namespace graft
