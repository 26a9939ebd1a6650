/*
 * graft/session.h: running graphs.
 *
 * A session runs ops of a graph: it computes fetched tensors from fed values, runs target ops
 * for their effects, and keeps state across runs (variables). Only the part of the graph the
 * fetches and targets need runs, and no further back than the fed tensors. Preparing a run
 * (pruning, ordering, making kernels) happens once per distinct (feeds, fetches, targets) and
 * is cached; later runs only run kernels.
 *
 * Ownership: a session keeps its graph alive (the caller may release its own reference to the
 * graph first; ops may still be added to the graph while a session exists). Fed tensors stay
 * the caller's; fetched tensors are new handles the caller frees with graft_tensor_free.
 *
 * Threading: graft_session_run may be called from any number of threads at once on the same
 * session (each run has its own state; variables are locked while read or written); so may
 * graft_callable_run on one callable. Making and freeing a session or callable is not
 * concurrent with anything else on it.
 */
#ifndef GRAFT_SESSION_H
#define GRAFT_SESSION_H

#include "graft/common.h"
#include "graft/graph.h"
#include "graft/run_options.h"
#include "graft/tensor.h"

GRAFT_BEGIN_DECL

typedef struct graft_session graft_session;

/*
 * Graph rewrites done when a run is prepared (all on by default); results are the same with
 * any of them off. Pruning to what the fetches and targets need always happens.
 */
typedef uint32_t graft_rewrite_flags;
enum graft_rewrite_flag_value {
  GRAFT_REWRITE_CONSTANT_FOLDING = 1u,      /* stateless ops of constants computed once, ahead */
  GRAFT_REWRITE_COMMON_SUBEXPRESSIONS = 2u, /* identical stateless ops computed once */
  GRAFT_REWRITE_IDENTITY_REMOVAL = 4u,      /* Identity/Snapshot/StopGradient pass values through */
  GRAFT_REWRITE_FUSION = 8u,                /* Conv2D/MatMul + BiasAdd (+ Relu, Relu6, Elu, LeakyRelu,
                                               Sigmoid, Tanh) run as one kernel on the CPU */
  GRAFT_REWRITE_ALL = 15u
};

/*
 * Options for graft_session_new; start from GRAFT_SESSION_OPTIONS_INIT. Fields are only appended.
 * num_threads is at most GRAFT_SESSION_MAX_THREADS (1024; 0 means one per core, capped there too):
 * a larger value is GRAFT_EINVAL naming the field. When the system cannot start the threads
 * (a process or memory limit), graft_session_new fails with GRAFT_ENOMEM and the message
 * says how many had started; those are stopped again.
 */
#define GRAFT_SESSION_MAX_THREADS 1024
typedef struct graft_session_options {
  uint32_t version;       /* GRAFT_SESSION_OPTIONS_VERSION */
  int32_t num_threads;    /* threads for running independent ops: 0 = one per core, 1 = the calling thread only */
  graft_bool track_memory; /* measure each run's peak memory (graft_session_last_peak_bytes); costs a little */
  graft_rewrite_flags disabled_rewrites; /* GRAFT_REWRITE_* bits of the graph rewrites to switch off */
  /* Version 2: */
  /* The device of ops that name none ("/device:GPU:0"; NULL or "" for the CPU); an op without a
   * kernel there, or with state or strings, still runs on the CPU. Copied by graft_session_new. */
  const char *default_device;
  /* Nonzero: an op whose own device string names a device that is missing or has no kernel for
   * it fails the run with GRAFT_EINVAL naming the op, instead of running on the CPU. */
  graft_bool strict_placement;
  /* Version 3: */
  /* > 0: a cap on the tensor memory the session's runs hold at once (what their kernels make,
   * alive until its last reader is done or the caller frees a fetched tensor; variables'
   * values included). An allocation that would pass it fails its op with GRAFT_ENOMEM naming
   * the op, the bytes asked for and the cap; the session stays usable. 0: no cap (the
   * default, as TensorFlow). The process's cap (graft_memory_set_limit) applies as well. */
  int64_t max_memory_bytes;
  /* Version 4: */
  /* A cluster spec ("worker:2,ps:1"; NULL or "": none): the session runs its graph across the
   * processes of the MPI job this process is in (graft/distributed.h), one per task, the
   * tasks taking the ranks in the spec's order. Every process builds the same graph and makes
   * a session with the same spec; rank 0 (task 0 of the first job) runs it with
   * graft_session_run, the others serve it with graft_session_serve. Each op runs on the task
   * its device names (/job:ps/task:0; none: the client's), an op that takes a variable where
   * the variable is; tensors that cross processes travel over MPI. See docs/distributed.md.
   * Copied by graft_session_new. */
  const char *cluster;
} graft_session_options;

#define GRAFT_SESSION_OPTIONS_VERSION 4
#define GRAFT_SESSION_OPTIONS_INIT {GRAFT_SESSION_OPTIONS_VERSION, 0, 0, 0, NULL, 0, 0, NULL}


/*
 * A new session over graph, which it keeps alive (the caller may release its reference to the
 * graph first). options may be NULL for the defaults. Free with graft_session_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_session_new(graft_session **out, graft_graph *graph,
                                                      const graft_session_options *options);
/* Frees the session and its state (variables). NULL is a harmless no-op. */
GRAFT_API void graft_session_free(graft_session *session);

/*
 * Runs the session: feeds[i] gets the value feed_values[i]; out_values[i] receives the value
 * of fetches[i] (a new tensor handle); targets are run for their effects. At least one fetch
 * or target is needed. Errors: feeding a tensor with a value of another dtype (GRAFT_EDTYPE)
 * or an incompatible shape (GRAFT_ESHAPE), feeding or fetching what may not be, a missing
 * kernel (GRAFT_ENOTFOUND), an error inside a kernel (its op named in the message), reading an
 * uninitialized variable (GRAFT_EPRECONDITION). On error no out_values are set, and the
 * session stays usable. Arguments come in the order of every run call of the API: feeds, then
 * fetches, then targets. The out_values are new handles: free each with graft_tensor_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_session_run(graft_tensor **out_values, graft_session *session,
                                                      const graft_output *feeds, graft_tensor *const *feed_values,
                                                      int nfeeds, const graft_output *fetches, int nfetches,
                                                      graft_op *const *targets, int ntargets);

/*
 * A cluster session's processes other than the client (options.cluster): runs their parts of
 * the client's runs, returning GRAFT_OK when the client frees its session. A part that fails is
 * reported to the client, whose run fails with the error and the task's name; serving goes on.
 * GRAFT_EPRECONDITION for the client or a session without a cluster. Blocks the calling thread.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_session_serve(graft_session *session);
/*
 * graft_session_run with a deadline and/or a cancellation token (run_options.h; options NULL:
 * neither): a run that passes its deadline fails with GRAFT_EDEADLINE, a cancelled one with
 * GRAFT_ECANCELLED, both naming the op the run stopped before. The out_values are new handles:
 * free each with graft_tensor_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_session_run_with_options(graft_tensor **out_values, graft_session *session,
                                                                   const graft_output *feeds,
                                                                   graft_tensor *const *feed_values, int nfeeds,
                                                                   const graft_output *fetches, int nfetches,
                                                                   graft_op *const *targets, int ntargets,
                                                                   const graft_run_options *options);

/*
 * A callable: a run of session prepared once for fixed feeds, fetches and targets (pruning,
 * rewrites, kernels, buffer plan), as TensorFlow's MakeCallable. graft_callable_run then only
 * runs kernels, without the per-call lookup graft_session_run does. The callable borrows the
 * session: free it before the session. One callable may run from many threads at once.
 * Errors are graft_session_run's, reported when the callable is made.
 */
typedef struct graft_callable graft_callable;

/* Makes a callable; free *out with graft_callable_free, before its session. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_session_make_callable(graft_callable **out, graft_session *session,
                                                                const graft_output *feeds, int nfeeds,
                                                                const graft_output *fetches, int nfetches,
                                                                graft_op *const *targets, int ntargets);
/*
 * Runs the callable with feed_values[i] for its feeds[i] (nfeeds must be the callable's);
 * out_values[i] receives its fetches[i] (new tensor handles: free each with graft_tensor_free).
 * Value errors (dtype, shape) and kernel errors as graft_session_run's; on error no out_values
 * are set.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_callable_run(graft_tensor **out_values, graft_callable *callable,
                                                       graft_tensor *const *feed_values, int nfeeds);
/*
 * graft_callable_run with a deadline and/or a cancellation token (as
 * graft_session_run_with_options). The out_values are new handles: free each with
 * graft_tensor_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_callable_run_with_options(graft_tensor **out_values,
                                                                    graft_callable *callable,
                                                                    graft_tensor *const *feed_values, int nfeeds,
                                                                    const graft_run_options *options);
/* Frees the callable (not its session). NULL is a harmless no-op. */
GRAFT_API void graft_callable_free(graft_callable *callable);

/*
 * The peak bytes of tensor values alive at once during the session's last successful run (the
 * last to finish, from any thread; constants and variables included); -1 unless the session
 * tracks memory. Each session keeps its own figures. Thread-safe.
 */
GRAFT_API int64_t graft_session_last_peak_bytes(const graft_session *session);

/*
 * The bytes of tensor memory the session's runs hold now (counted against its
 * max_memory_bytes); -1 for a session without a cap. Thread-safe.
 */
GRAFT_API int64_t graft_session_memory_in_use(const graft_session *session);

/* The number of ops that ran in the session's last successful run (from any thread). Thread-safe. */
GRAFT_API int64_t graft_session_last_ops_run(const graft_session *session);

GRAFT_END_DECL

#endif /* GRAFT_SESSION_H */
