/*
 * graft/eager.h: eager execution and the values of traced functions.
 *
 * A context runs ops at once on concrete tensors (eager), or — while one of its functions is
 * being traced on the calling thread (graft/function.h) — records them into the traced
 * function's graph and returns symbolic values. The same calls build ops, constants and
 * variables in both modes: graft_op_call_* for any registered op, graft_value_from_host for
 * host numbers, bools and strings (convert_to_tensor), graft_variable_* for resource variables.
 *
 * Ownership: every graft_value returned through an out-parameter is the caller's, freed with
 * graft_value_free. Values, functions and op calls must be freed before their context. A
 * symbolic value is only usable inside the trace that made it (its callback).
 *
 * Threading: a context may run eager ops and call functions from many threads at once; an op
 * call, and a trace, belong to one thread.
 */
#ifndef GRAFT_EAGER_H
#define GRAFT_EAGER_H

#include "graft/attrs.h"
#include "graft/common.h"
#include "graft/dtype.h"
#include "graft/graph.h"
#include "graft/run_options.h"
#include "graft/shape.h"
#include "graft/tensor.h"

GRAFT_BEGIN_DECL

typedef struct graft_context graft_context;
typedef struct graft_value graft_value;
typedef struct graft_op_call graft_op_call;

/* A new context; free *out with graft_context_free (after its values, functions and op calls). */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_context_new(graft_context **out);
/* Frees the context and its variables. NULL is a harmless no-op. */
GRAFT_API void graft_context_free(graft_context *ctx);
/* 1 while a function of ctx is being traced on this thread (ops are recorded, not run). */
GRAFT_API graft_bool graft_context_is_tracing(const graft_context *ctx);
/*
 * The graph of the function being traced on this thread, as a new reference (release it with
 * graft_graph_free; the graph itself lives on in the concrete function, or while its symbolic
 * values live). For building with the graph API inside a trace: name scopes, control
 * dependencies, devices. GRAFT_EPRECONDITION when not tracing.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_context_trace_graph(graft_graph **out, graft_context *ctx);
/*
 * Forgets the eager kernels ctx has cached, so that later op calls make new ones: stateful
 * kernels such as random ops start afresh (what resetting a global random seed needs).
 * Thread-safe; op calls made before keep working.
 */
GRAFT_API void graft_context_clear_caches(graft_context *ctx);

/* ---- Values ----------------------------------------------------------------------------- */

/*
 * A concrete value sharing tensor's buffer (used in a trace, it is captured). The tensor stays
 * the caller's; free *out with graft_value_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_value_from_tensor(graft_value **out, const graft_tensor *tensor);

/*
 * convert_to_tensor: host elements as a value, by the rule of graft_tensor_from_host (graft/tensor.h).
 * While tracing it is a constant of the traced graph; otherwise concrete. Free *out with
 * graft_value_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_value_from_host(graft_value **out, graft_context *ctx,
                                                          graft_host_kind host_kind,
                                                          const void *elements, const int64_t *dims, int ndims,
                                                          graft_dtype dtype);

/*
 * A concrete value's tensor (a new handle sharing its buffer; free *out with graft_tensor_free).
 * GRAFT_EPRECONDITION for a symbolic one.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_value_to_tensor(graft_tensor **out, const graft_value *value);
GRAFT_API graft_bool graft_value_is_symbolic(const graft_value *value);
GRAFT_API graft_dtype graft_value_dtype(const graft_value *value);
/* The (partial, for a symbolic value) shape; a new handle: free *out with graft_shape_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_value_shape(graft_shape **out, const graft_value *value);
/*
 * A symbolic value's tensor in its traced graph; GRAFT_EPRECONDITION for a concrete one. The op
 * is borrowed: a symbolic value keeps its graph alive, so the op stays valid while the value
 * lives (use graft_op_graph + graft_graph_share to keep it longer). A symbolic value that
 * escaped its trace can still be inspected; using it as an input once its trace is over is an
 * error that says it is out of scope.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_value_output(graft_output *out, const graft_value *value);
/*
 * The reverse of graft_value_output: while a function of ctx is traced on this thread, the
 * symbolic value of a tensor of the graph being traced (graft_context_trace_graph), such as one
 * that graft_graph_add_gradients added to it. GRAFT_EPRECONDITION when nothing is traced on
 * this thread; GRAFT_EINVAL for a tensor of another graph. Free *out with graft_value_free.
 * Thread-safety: on the tracing thread only.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_value_from_output(graft_value **out, graft_context *ctx, graft_output output);
/* A new handle to the same value; free *out with graft_value_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_value_copy(graft_value **out, const graft_value *value);
/* Frees a value handle (other handles to the same value are unaffected). NULL is a harmless no-op. */
GRAFT_API void graft_value_free(graft_value *value);

/* ---- Ops -------------------------------------------------------------------------------- */

/*
 * An op of type op_type to run (or record) on ctx. Free *out with graft_op_call_free (before the
 * context); executing does not consume it. The call belongs to one thread at a time.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_call_new(graft_op_call **out, graft_context *ctx, const char *op_type);
/* Frees an op call and its attributes (graft_op_call_attrs). NULL is a harmless no-op. */
GRAFT_API void graft_op_call_free(graft_op_call *call);
/* Inputs, in the order of the op's arguments: one value per single argument, a list per list
 * argument (N * T, or a list of types). */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_call_add_input(graft_op_call *call, const graft_value *value);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_call_add_input_list(graft_op_call *call, const graft_value *const *values,
                                                                 int n);
/* The call's attributes (graft/attrs.h; those inferred from the inputs, such as T, need not be
 * set); borrowed, valid until the call is freed. NULL only for a NULL call. */
GRAFT_API graft_attrs *graft_op_call_attrs(graft_op_call *call);
/* Tracing only: the op's name in the traced graph (made unique). */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_call_set_name(graft_op_call *call, const char *name);
/*
 * The device the op asks for ("/device:GPU:0", "/device:OPENCL:0"; "" for the CPU). Eagerly the
 * op runs there when the process has that device and it has a kernel for the op (inputs are
 * copied there and the outputs back to host memory), else on the CPU; traced, it is the
 * recorded node's device. GRAFT_EINVAL for a device string that does not parse.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_call_set_device(graft_op_call *call, const char *device);

/*
 * Runs the op (eager: concrete outputs) or records it (tracing: symbolic outputs). *noutputs
 * receives the op's number of outputs; outputs[0..min(capacity, *noutputs)) the values: new
 * handles, each freed with graft_value_free (outputs past capacity are dropped, not leaked).
 * Errors name the op: unknown op, bad inputs or attrs, a failing kernel. The call is not
 * consumed: it may be executed again (with the same inputs and attrs).
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_call_execute(graft_value **outputs, int capacity, int *noutputs,
                                                          graft_op_call *call);
/*
 * graft_op_call_execute with a deadline and/or a cancellation token (run_options.h; options
 * NULL: neither), for ops that run graphs of their own (PartitionedCall, While, If): the
 * deadline or a cancel stops them before their next kernel or loop iteration with
 * GRAFT_EDEADLINE / GRAFT_ECANCELLED naming the op it stopped before; a call whose token is
 * already cancelled fails before the op runs. Traced, the options are ignored.
 * The outputs are new handles, each freed with graft_value_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_call_execute_with_options(graft_value **outputs, int capacity,
                                                                       int *noutputs, graft_op_call *call,
                                                                       const graft_run_options *options);

/* ---- Variables -------------------------------------------------------------------------- */

/*
 * A new resource variable holding initial (its dtype and shape are the variable's), returned
 * as its handle (a resource value). Inside a trace, only the function's first trace may create
 * variables (GRAFT_EPRECONDITION otherwise); a value computed in that trace initializes the
 * variable on the function's first call. name may be NULL. Free *out_handle with
 * graft_value_free (the variable itself lives in ctx until graft_context_free).
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_variable_new(graft_value **out_handle, graft_context *ctx,
                                                       const graft_value *initial, const char *name);
/*
 * Marks the variable of handle (from graft_variable_new) trainable or not (new variables are
 * trainable). A gradient tape watching accessed variables (graft/tape.h) watches only trainable
 * ones; a non-trainable variable gets a gradient only when watched explicitly. Set it before
 * the variable is used from other threads.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_variable_set_trainable(graft_value *handle, graft_bool trainable);
/* 1 when the variable of handle is trainable (0 for a handle that is not a variable's). */
GRAFT_API graft_bool graft_variable_is_trainable(const graft_value *handle);
/*
 * 1 when a and b are handles of the same variable: the one graft_variable_new gave and its
 * copies (graft_value_copy, a concrete function's captured value of it from
 * graft_concrete_function_captured_value); 0 otherwise, also when either is NULL, symbolic or
 * not a variable's handle. Thread-safe.
 */
GRAFT_API graft_bool graft_variable_same(const graft_value *a, const graft_value *b);
/*
 * Reads the variable (ReadVariableOp): concrete eagerly, symbolic while tracing. Free *out with
 * graft_value_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_variable_read(graft_value **out, graft_context *ctx,
                                                        const graft_value *handle);
/* Assigns value, adds it or subtracts it (AssignVariableOp, AssignAddVariableOp, AssignSubVariableOp). */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_variable_assign(graft_context *ctx, const graft_value *handle,
                                                          const graft_value *value);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_variable_assign_add(graft_context *ctx, const graft_value *handle,
                                                              const graft_value *value);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_variable_assign_sub(graft_context *ctx, const graft_value *handle,
                                                              const graft_value *value);

GRAFT_END_DECL

#endif /* GRAFT_EAGER_H */
