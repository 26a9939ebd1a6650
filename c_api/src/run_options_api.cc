// C API: run options (graft/run_options.h): cancellation tokens and deadlines.
#include "c_api/src/run_options_api.h"

#include <new>

#include "c_api/src/api_error.h"

using graft::Status;
using graft::capi::Guard;

namespace graft::capi {

Status RunControlFromC(const graft_run_options* options, RunControl* out) {
  if (options == nullptr) {
    *out = RunControl();
    return Status::Ok();
  }
  if (options->version < 1) return errors::InvalidArgument("options.version ", options->version, " is unknown");
  if (options->timeout_ms < 0) {
    return errors::InvalidArgument("options.timeout_ms is ", options->timeout_ms, ": it must be >= 0 (0: no deadline)");
  }
  *out = RunControl::After(options->timeout_ms,
                           options->cancellation != nullptr ? &options->cancellation->cancellation : nullptr);
  return Status::Ok();
}

}  // namespace graft::capi

extern "C" {

GRAFT_API int graft_cancellation_new(graft_cancellation** out) {
  return Guard("graft_cancellation_new", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    *out = new (std::nothrow) graft_cancellation();
    if (*out == nullptr) return graft::errors::ResourceExhausted("out of memory for a cancellation token");
    return Status::Ok();
  });
}

// Not through Guard: a signal handler may call it, and Guard touches the thread's error state.
GRAFT_API void graft_cancellation_cancel(graft_cancellation* cancellation) {
  if (cancellation != nullptr) cancellation->cancellation.Cancel();
}

GRAFT_API graft_bool graft_cancellation_is_cancelled(const graft_cancellation* cancellation) {
  return cancellation != nullptr && cancellation->cancellation.cancelled() ? 1 : 0;
}

GRAFT_API void graft_cancellation_reset(graft_cancellation* cancellation) {
  if (cancellation != nullptr) cancellation->cancellation.Reset();
}

GRAFT_API void graft_cancellation_free(graft_cancellation* cancellation) { delete cancellation; }

}  // extern "C"
