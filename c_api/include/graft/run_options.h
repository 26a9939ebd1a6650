/*
 * graft/run_options.h: a run's deadline and cancellation (TensorFlow's RunOptions.timeout_in_ms
 * and its cancellation manager).
 *
 * The *_with_options variants of graft_session_run, graft_callable_run,
 * graft_saved_model_run, graft_function_call and graft_concrete_function_call take a
 * graft_run_options. The run checks it before each kernel it starts (nested function calls,
 * If and While included, so a runaway loop stops too) and, once its deadline has passed or its
 * token is cancelled, stops with GRAFT_EDEADLINE or GRAFT_ECANCELLED and a message naming the
 * op it stopped before (or the While it stopped inside). A kernel already computing finishes
 * first. Preparing a run never runs a function body (constant folding leaves ops that call
 * functions to the run), so nothing before the first kernel loops. Eager ops
 * (graft_op_call_execute) take no options. What the run changed before
 * it stopped (variables assigned by ops that ran) stays, as in TensorFlow; the session,
 * callable, model or function stays usable.
 *
 * Threading: a token may be shared by any number of runs on any threads; cancel it from any
 * thread, or from a signal handler.
 */
#ifndef GRAFT_RUN_OPTIONS_H
#define GRAFT_RUN_OPTIONS_H

#include "graft/common.h"

GRAFT_BEGIN_DECL

/* A cancellation token: every run given it stops once it is cancelled. */
typedef struct graft_cancellation graft_cancellation;

/* A new token, not cancelled. Free *out with graft_cancellation_free when no run uses it. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_cancellation_new(graft_cancellation **out);
/*
 * Cancels the token: runs using it stop before their next kernel with GRAFT_ECANCELLED, and
 * runs started with it later stop before their first kernel (after preparing the run, and
 * tracing for a function call), until graft_cancellation_reset. Thread-safe and
 * async-signal-safe (one atomic store: a SIGINT handler may call it). NULL: a no-op.
 */
GRAFT_API void graft_cancellation_cancel(graft_cancellation *cancellation);
/* Whether the token is cancelled (0 for NULL). Thread-safe. */
GRAFT_API graft_bool graft_cancellation_is_cancelled(const graft_cancellation *cancellation);
/* Makes a cancelled token usable again for new runs. Thread-safe; NULL: a no-op. */
GRAFT_API void graft_cancellation_reset(graft_cancellation *cancellation);
/* Frees the token; no run may still use it. NULL is a harmless no-op. */
GRAFT_API void graft_cancellation_free(graft_cancellation *cancellation);

typedef struct graft_run_options {
  uint32_t version;   /* GRAFT_RUN_OPTIONS_VERSION */
  int64_t timeout_ms; /* > 0: the run stops with GRAFT_EDEADLINE once this many ms have passed
                         since the call began; 0: no deadline; < 0: GRAFT_EINVAL */
  graft_cancellation *cancellation; /* NULL, or a token (borrowed for the call) */
} graft_run_options;

#define GRAFT_RUN_OPTIONS_VERSION 1
#define GRAFT_RUN_OPTIONS_INIT {GRAFT_RUN_OPTIONS_VERSION, 0, NULL}

GRAFT_END_DECL

#endif /* GRAFT_RUN_OPTIONS_H */
