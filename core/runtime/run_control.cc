#include "core/runtime/run_control.h"

#include <time.h>

#include <chrono>

namespace graft {


namespace {
int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

// (steady_clock is CLOCK_MONOTONIC on Linux: the coarse clock's ticks follow it.)
int64_t RunControl::CoarseNowNs() {
#ifdef CLOCK_MONOTONIC_COARSE
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) == 0) return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
#endif
  return SteadyNowNs();
}

int64_t RunControl::PreciseNowNs() {
#ifdef CLOCK_MONOTONIC_COARSE
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0) return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
#endif
  return SteadyNowNs();
}

RunControl RunControl::After(int64_t timeout_ms, const CancellationFlag* cancellation) {
  RunControl c;
  c.cancellation = cancellation;
  if (timeout_ms > 0) {
    const int64_t now = PreciseNowNs();
    // A timeout past what the clock can hold is no deadline.
    if (timeout_ms < (kNoDeadline - now) / 1000000) c.deadline_ns = now + timeout_ms * 1000000;
  }
  return c;
}

Status RunControl::Stopped(Code why, const Node& next, bool inside) {
  const std::string where = inside ? StrCat("inside op '", next.name(), "' of type ", next.type())
                                   : StrCat("before op '", next.name(), "' of type ", next.type(), " ran");
  if (why == Code::kCancelled) return errors::Cancelled("the run was cancelled (", where, ")");
  return errors::DeadlineExceeded("the run passed its deadline (", where, ")");
}

}  // namespace graft
