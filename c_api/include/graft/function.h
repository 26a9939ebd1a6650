/*
 * graft/function.h: traced functions (tf.function) and the host-function op.
 *
 * A function wraps a host callback that builds ops on a context (graft/eager.h). Calling it
 * looks up a concrete function by the call's signature — the dtype and shape of each tensor
 * argument and the value of each host argument — and traces the callback once on a miss: the
 * callback runs in tracing mode, its ops are recorded into a graph, tensor arguments are
 * symbolic, host arguments are trace-time constants. Later calls with the same signature run
 * the traced graph without calling the callback. An input signature fixes one concrete
 * function; reduce_retracing relaxes shapes after a second shape for the same arguments.
 *
 * Inside a trace: eager tensors used become captured inputs; variables are captured by handle
 * (an assignment made outside is seen by the next call); stateful ops run on every call in
 * program order; calling another function records a PartitionedCall /
 * StatefulPartitionedCall and puts the callee in the traced graph's function library.
 *
 * Ownership: graft_function_free frees the function and its concrete functions; concrete
 * function pointers are borrowed from their function (the same signature gives the same
 * pointer) and their graphs from them. Outputs are new graft_value handles.
 *
 * Threading: a function may be called from many threads at once; a trace holds the function's
 * lock, so a second signature traced by another thread waits.
 */
#ifndef GRAFT_FUNCTION_H
#define GRAFT_FUNCTION_H

#include "graft/common.h"
#include "graft/eager.h"
#include "graft/graph.h"
#include "graft/run_options.h"

GRAFT_BEGIN_DECL

typedef struct graft_function graft_function;
typedef struct graft_concrete_function graft_concrete_function;
typedef struct graft_value_list graft_value_list;

/* An argument of a function call: a tensor value, or a host value (a trace-time constant). */
typedef int32_t graft_arg_kind;
enum graft_arg_kind_value {
  GRAFT_ARG_VALUE = 0,
  GRAFT_ARG_INT = 1,
  GRAFT_ARG_FLOAT = 2,
  GRAFT_ARG_STRING = 3,
  GRAFT_ARG_BOOL = 4
};

typedef struct graft_arg {
  graft_arg_kind kind;       /* GRAFT_ARG_* */
  const graft_value *value;  /* GRAFT_ARG_VALUE */
  int64_t i;                 /* GRAFT_ARG_INT */
  double f;                  /* GRAFT_ARG_FLOAT */
  const char *s;             /* GRAFT_ARG_STRING */
  graft_bool b;              /* GRAFT_ARG_BOOL */
} graft_arg;

/* A tensor's dtype and (partial) shape: dims NULL with ndims -1 for an unknown rank, -1 for an
 * unknown dimension; name may be NULL. */
typedef struct graft_tensor_spec {
  graft_dtype dtype;
  const int64_t *dims;
  int ndims;
  const char *name;
} graft_tensor_spec;

/* Appends a new handle to value (the list keeps its own). */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_value_list_append(graft_value_list *list, const graft_value *value);

/*
 * The callback traced into a function: builds ops on ctx from args (tensor arguments are
 * symbolic values of the trace) and appends its outputs to outputs. Returns GRAFT_OK, or an
 * error code (after graft_error_set, or the failing graft call's own error), which fails the
 * call with that message.
 */
typedef int (*graft_trace_fn)(graft_context *ctx, const graft_arg *args, int nargs, graft_value_list *outputs,
                              void *user_data);

/* Options for graft_function_new; start from GRAFT_FUNCTION_OPTIONS_INIT. Fields are only appended. */
typedef struct graft_function_options {
  uint32_t version;                          /* GRAFT_FUNCTION_OPTIONS_VERSION */
  const graft_tensor_spec *input_signature;  /* NULL: none */
  int ninput_signature;
  graft_bool reduce_retracing;
} graft_function_options;
#define GRAFT_FUNCTION_OPTIONS_VERSION 1
#define GRAFT_FUNCTION_OPTIONS_INIT {GRAFT_FUNCTION_OPTIONS_VERSION, NULL, 0, 0}

/*
 * A function named name tracing fn (user_data is borrowed: it must outlive the function; options
 * and its signature are copied). Free *out with graft_function_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_function_new(graft_function **out, const char *name, graft_trace_fn fn,
                                                       void *user_data, const graft_function_options *options);
/*
 * Frees the function and its concrete functions: every graft_concrete_function pointer it gave,
 * and the names and graphs borrowed from them, become invalid (a graph kept with
 * graft_graph_share lives on). NULL is a harmless no-op.
 */
GRAFT_API void graft_function_free(graft_function *function);

/*
 * Calls the function on ctx: traces on a signature miss, then runs the concrete function
 * (eagerly, or recorded as a call op when ctx is tracing another function on this thread).
 * *noutputs receives the number of outputs; outputs[0..min(capacity, *noutputs)) new handles,
 * each freed with graft_value_free. Errors: arguments that do not fit the input signature
 * (naming the argument), the callback's own error, a failing op (named).
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_function_call(graft_value **outputs, int capacity, int *noutputs,
                                                        graft_function *function, graft_context *ctx,
                                                        const graft_arg *args, int nargs);
/*
 * graft_function_call with a deadline and/or a cancellation token (run_options.h; options
 * NULL: neither): an eager call stops before its next op with GRAFT_EDEADLINE or
 * GRAFT_ECANCELLED, naming the op. (Tracing and a call recorded into another trace are not
 * stopped: they run no ops.) Outputs as graft_function_call's: new handles, each freed with
 * graft_value_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_function_call_with_options(graft_value **outputs, int capacity,
                                                                     int *noutputs, graft_function *function,
                                                                     graft_context *ctx, const graft_arg *args,
                                                                     int nargs, const graft_run_options *options);
/*
 * The concrete function for these arguments (traced if needed); borrowed from function: valid
 * until graft_function_free, not freed by the caller.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_function_get_concrete(graft_concrete_function **out,
                                                                graft_function *function, graft_context *ctx,
                                                                const graft_arg *args, int nargs);
/* The concrete function for tensor arguments of these specs; borrowed, as from get_concrete. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_function_get_concrete_for_specs(graft_concrete_function **out,
                                                                          graft_function *function,
                                                                          graft_context *ctx,
                                                                          const graft_tensor_spec *specs, int n);
/* How many times the callback has been traced. */
GRAFT_API int64_t graft_function_tracing_count(const graft_function *function);

/* ---- Concrete functions ------------------------------------------------------------------ */

/* The function's unique name (as in a FunctionDefLibrary); borrowed, valid until graft_function_free. */
GRAFT_API const char *graft_concrete_function_name(const graft_concrete_function *f);
/*
 * Its traced graph (borrowed: valid while f lives, or longer with graft_graph_share; do not add
 * ops). The graft_output of the accessors below borrow their ops from this graph.
 */
GRAFT_API graft_graph *graft_concrete_function_graph(graft_concrete_function *f);
/* Inputs (argument Placeholders), captured inputs (their Placeholders) and outputs. */
GRAFT_API int graft_concrete_function_num_inputs(const graft_concrete_function *f);
GRAFT_API graft_output graft_concrete_function_input(const graft_concrete_function *f, int i);
GRAFT_API int graft_concrete_function_num_captured(const graft_concrete_function *f);
GRAFT_API graft_output graft_concrete_function_captured_placeholder(const graft_concrete_function *f, int i);
/* The captured value itself (a new handle; free *out with graft_value_free). */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_concrete_function_captured_value(graft_value **out,
                                                                           const graft_concrete_function *f, int i);
GRAFT_API int graft_concrete_function_num_outputs(const graft_concrete_function *f);
GRAFT_API graft_output graft_concrete_function_output(const graft_concrete_function *f, int i);
/*
 * Calls with one value per input (no host arguments: they were fixed at trace time). Outputs as
 * graft_function_call's: new handles, each freed with graft_value_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_concrete_function_call(graft_value **outputs, int capacity, int *noutputs,
                                                                 graft_concrete_function *f, graft_context *ctx,
                                                                 const graft_value *const *inputs, int ninputs);
/*
 * graft_concrete_function_call with a deadline and/or a cancellation token (as
 * graft_function_call_with_options). Outputs: new handles, each freed with graft_value_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_concrete_function_call_with_options(
    graft_value **outputs, int capacity, int *noutputs, graft_concrete_function *f, graft_context *ctx,
    const graft_value *const *inputs, int ninputs, const graft_run_options *options);
/* Its FunctionDef (serialized), as it goes into a FunctionDefLibrary; *out_data is freed with
 * graft_buffer_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_concrete_function_to_function_def(void **out_data, size_t *out_len,
                                                                            const graft_concrete_function *f);
/* Adds the function (and the functions it calls) to graph's function library, so that ops of
 * graph may call it (PartitionedCall with f = its name). */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_concrete_function_add_to_graph(const graft_concrete_function *f,
                                                                         graft_graph *graph);

/* ---- Host functions (tf.py_function) ----------------------------------------------------- */

/*
 * A host callback run by the host-function op: inputs[0..ninputs) are borrowed tensors; it
 * stores up to capacity new tensors in outputs (Graft frees them) and their number in
 * *noutputs, and returns GRAFT_OK or an error code (with graft_error_set), which fails the run
 * with that message. It may run eager ops on a context of its own. It is called from whatever
 * thread runs the op, possibly several at once.
 */
typedef int (*graft_host_fn)(graft_tensor **outputs, int capacity, int *noutputs, graft_tensor *const *inputs,
                             int ninputs, void *user_data);

/* Registers fn under token (process-wide). destroy (may be NULL) releases user_data when the
 * callback is unregistered and no run uses it any more. GRAFT_EEXISTS when token is taken. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_host_function_register(const char *token, graft_host_fn fn, void *user_data,
                                                                 void (*destroy)(void *user_data));
GRAFT_API GRAFT_MUST_USE_RESULT int graft_host_function_unregister(const char *token);

/*
 * Runs (eager) or records (tracing) the host-function op (EagerPyFunc) calling token with
 * inputs; its outputs have dtypes tout[0..ntout). A graph holding the op keeps only the token:
 * it runs where the token is registered and fails, naming the token, elsewhere. Outputs as
 * graft_function_call's: new handles, each freed with graft_value_free.
 * Differentiable once (graft_graph_add_gradients, graft_tape_gradient): the gradient op calls
 * the callback again on the same inputs under a tape and differentiates the eager ops it ran
 * on tensors made from its inputs (graft_value_from_tensor shares their buffers); results
 * computed from the bytes on the host get zero gradients. The token must still be registered
 * when the gradient runs.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_host_function_call(graft_value **outputs, int capacity, int *noutputs,
                                                             graft_context *ctx, const char *token,
                                                             const graft_value *const *inputs, int ninputs,
                                                             const graft_dtype *tout, int ntout);

GRAFT_END_DECL

#endif /* GRAFT_FUNCTION_H */
