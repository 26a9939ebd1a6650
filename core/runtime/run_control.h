// RunControl: what may stop a run before it ends — a CancellationFlag that another thread (or a
// signal handler) trips, and a deadline — and the memory account its kernels allocate from. Every engine checks it before each kernel, so a run
// stops at the next kernel boundary, and a While loop's iterations are kernels of its body's
// run: a runaway loop stops too. A kernel already computing finishes first (one kernel is not
// interrupted). The run then fails with kCancelled or kDeadlineExceeded naming the op it
// stopped before; what the run changed so far (variables assigned by ops that ran) stays, as
// in TensorFlow, and the session, callable or function stays usable.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>

#include "core/graph.h"
#include "core/memory_account.h"
#include "core/status.h"
#include "core/thread_scoped.h"

namespace graft {

struct ClusterRun;  // collective_transport.h

// A flag shared by the runs that should stop together. Cancel is thread-safe and
// async-signal-safe (one atomic store), so a SIGINT handler may call it.
class CancellationFlag {
 public:
  void Cancel() noexcept { cancelled_.store(true, std::memory_order_release); }
  // Makes the token usable for new runs (a run started before sees the change or not).
  void Reset() noexcept { cancelled_.store(false, std::memory_order_release); }
  bool cancelled() const noexcept { return cancelled_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> cancelled_{false};
  static_assert(std::atomic<bool>::is_always_lock_free);
};

struct RunControl {
  static constexpr int64_t kNoDeadline = std::numeric_limits<int64_t>::max();

  const CancellationFlag* cancellation = nullptr;  // none: the run cannot be cancelled
  int64_t deadline_ns = kNoDeadline;           // CLOCK_MONOTONIC ns (PreciseNowNs)
  // The account the run's kernels allocate tensors from (a session's, under its memory cap;
  // made with make_shared), or none.
  MemoryAccount* memory = nullptr;
  // The run of a cluster session this run is the local part of (its id keys its edges'
  // messages; its _GraftSend kernels leave their sends there), or none.
  ClusterRun* cluster = nullptr;

  // A control with a timeout from now (timeout_ms > 0) and/or a cancellation.
  static RunControl After(int64_t timeout_ms, const CancellationFlag* cancellation);
  // The clock of the checks before each kernel, in ns: CLOCK_MONOTONIC_COARSE where there is
  // one (a read costs 5 ns against 23 for CLOCK_MONOTONIC; its 1-10 ms ticks are fine for
  // deadlines given in ms), else steady_clock. It lags the precise clock by up to a tick and
  // never leads it: the deadline is set from the precise one, so a run never stops early.
  static int64_t CoarseNowNs();
  static int64_t PreciseNowNs();

  // The control of the eager ops this thread runs for a call (a function called under a
  // gradient tape runs its body op by op: RunControlScope), or nullptr.
  static const RunControl* Current() { return ThreadScoped<const RunControl>::Current(); }

  bool active() const {
    return cancellation != nullptr || deadline_ns != kNoDeadline || memory != nullptr || cluster != nullptr;
  }
  // OK, or why the run must stop before running `next` (named in the message); inside: the
  // check is made by `next` itself between its iterations (While), which the message says.
  Status Check(const Node& next, bool inside = false) const {
    if (cancellation != nullptr && cancellation->cancelled()) return Stopped(Code::kCancelled, next, inside);
    if (deadline_ns != kNoDeadline && CoarseNowNs() >= deadline_ns) {
      return Stopped(Code::kDeadlineExceeded, next, inside);
    }
    return Status::Ok();
  }

 private:
  static Status Stopped(Code why, const Node& next, bool inside);
};

// Sets RunControl::Current() for the calling thread while it lives (nullptr: leaves it).
using RunControlScope = ThreadScoped<const RunControl>::Scope;

}  // namespace graft
