// graft_run_options (graft/run_options.h) to the core's RunControl, for every run entry point.
#pragma once

#include "core/runtime/run_control.h"
#include "core/status.h"
#include "graft/run_options.h"

struct graft_cancellation {
  graft::CancellationFlag cancellation;
};

namespace graft::capi {

// options NULL: no deadline, no cancellation. The deadline counts from this call.
Status RunControlFromC(const graft_run_options* options, RunControl* out);

}  // namespace graft::capi
