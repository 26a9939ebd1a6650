/*
 * graft/graph.h: dataflow graphs with TensorFlow's construction semantics.
 *
 * A graft_graph holds operations (graft_op) whose outputs (graft_output: an op and an output
 * index, TensorFlow's symbolic Tensor) feed other operations. This header has the graph
 * itself: lifetimes, lookup by name, name scopes and the other contexts, feeding and fetching,
 * random seeds. Making and reading ops is in graft/operation.h, collections in
 * graft/collection.h.
 *
 * Contexts, as TensorFlow's `with` blocks, are push/pop pairs on the graph: name scopes,
 * control dependencies, devices, colocation, containers and gradient override maps. A pop
 * without a matching push is GRAFT_EPRECONDITION.
 *
 * Ownership: a graph is created with graft_graph_new and freed with graft_graph_free, which
 * frees its ops. graft_op pointers are borrowed: they stay valid, and keep their address, as
 * long as the graph (adding ops never moves existing ones). Strings returned as const char *
 * belong to the op or graph they came from.
 *
 * Threading: build a graph from one thread at a time. Looking ops and tensors up by name and
 * listing ops may be done from any number of threads at once, also while another thread adds
 * ops. After graft_graph_finalize a graph is read-only and may be shared freely.
 */
#ifndef GRAFT_GRAPH_H
#define GRAFT_GRAPH_H

#include "graft/common.h"
#include "graft/dtype.h"
#include "graft/memory.h"
#include "graft/shape.h"
#include "graft/tensor.h"

GRAFT_BEGIN_DECL

typedef struct graft_graph graft_graph;
typedef struct graft_op graft_op;
typedef struct graft_op_desc graft_op_desc;

/* A tensor of a graph: output `index` of `op`. */
typedef struct graft_output {
  graft_op *op;
  int index;
} graft_output;


/* ---- Graphs ---------------------------------------------------------------------------- */

/*
 * Graph lifetimes: a graph has one graft_graph handle, and the handle counts the references the
 * caller holds. graft_graph_new, graft_graph_share and graft_context_trace_graph each give one
 * reference, which the caller releases with graft_graph_free. The graph lives while the caller
 * holds a reference, or while something that uses it lives: a session made over it, a symbolic
 * value or a concrete function of a traced graph. So a session keeps running after its graph's
 * last reference was released (sqlite's "zombie" close), and ops (graft_op *) stay valid as
 * long as their graph lives. Handles returned without a reference (graft_op_graph,
 * graft_concrete_function_graph, graft_saved_model_graph) are borrowed: take a reference with
 * graft_graph_share to keep the graph.
 */
/* A new empty graph; *out is a reference: release it with graft_graph_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_new(graft_graph **out);
/*
 * A new reference to graph (which may be borrowed): *out is graph itself, and the caller
 * releases the reference with graft_graph_free. Thread-safe.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_share(graft_graph **out, graft_graph *graph);
/*
 * Releases one reference the caller holds; the graph and its ops are freed when nothing else
 * uses it. NULL is a harmless no-op. Releasing more references than were taken is a caller
 * error: it may release another holder's reference (when none is left, it does nothing).
 * Thread-safe.
 */
GRAFT_API void graft_graph_free(graft_graph *graph);

/*
 * The number of ops, and op i in creation order (NULL when i is out of range). The op is
 * borrowed from the graph: valid as long as the graph lives; not freed by the caller.
 */
GRAFT_API int64_t graft_graph_num_ops(const graft_graph *graph);
GRAFT_API graft_op *graft_graph_op(const graft_graph *graph, int64_t index);

/* The op of this name, borrowed from the graph (valid as long as it). GRAFT_ENOTFOUND if none. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_op_by_name(graft_op **out, const graft_graph *graph, const char *name);
/*
 * The tensor "op:i" ("op" means "op:0"); its op is borrowed from the graph. GRAFT_ENOTFOUND /
 * GRAFT_EINVAL naming what is wrong.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_tensor_by_name(graft_output *out, const graft_graph *graph,
                                                               const char *name);

/* Makes the graph read-only: creating an op afterwards is GRAFT_EPRECONDITION. */
GRAFT_API void graft_graph_finalize(graft_graph *graph);
GRAFT_API graft_bool graft_graph_finalized(const graft_graph *graph);
/* Grows by one with every op added (the id of the last op; 0 for an empty graph). */
GRAFT_API int64_t graft_graph_version(const graft_graph *graph);

/* ---- Names ----------------------------------------------------------------------------- */

/*
 * A unique op name for `name` under the current name scope: "c", then "c_1", "c_2", ...
 * (unique ignoring case). With mark_as_used the name is taken. Free *out with graft_string_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_unique_name(char **out, graft_graph *graph, const char *name,
                                                            graft_bool mark_as_used);

/*
 * Enters a name scope. `name` is made unique under the current scope ("inner", then
 * "inner_1"); a name ending in '/' re-enters that absolute scope ("nested/"); NULL or ""
 * returns to the top. If out_scope is not NULL it receives the scope as TensorFlow's
 * `with name_scope(...) as scope` gives it ("nested/inner/" or ""); free it with
 * graft_string_free. GRAFT_EINVAL for a name that is not valid.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_push_name_scope(char **out_scope, graft_graph *graph, const char *name);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_pop_name_scope(graft_graph *graph);
/*
 * The current name scope without a trailing '/' ("" at the top). Borrowed from the graph: valid
 * until the scope changes (a push or pop of a name scope) or the graph is freed; do not free it.
 */
GRAFT_API const char *graft_graph_name_scope(const graft_graph *graph);

/* ---- Contexts -------------------------------------------------------------------------- */

/* Ops created until the matching pop depend on these ops (and on those of enclosing contexts). */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_push_control_dependencies(graft_graph *graph, graft_op *const *ops, int n);
/* Ops created until the matching pop get no control dependencies from enclosing contexts. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_push_no_control_dependencies(graft_graph *graph);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_pop_control_dependencies(graft_graph *graph);

/*
 * Device scopes. A spec ("/job:ps/device:GPU:0", "/cpu:0"): ops created inside get its parts
 * where an inner scope has not set them. NULL or "": ops created inside get no device from
 * enclosing scopes. GRAFT_EINVAL for a malformed spec.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_push_device(graft_graph *graph, const char *device);

/*
 * A device function: called for each op created inside, with the op (its type, name, inputs
 * and attributes are set) and the user_data; returns the op's device, or NULL for none. Graft
 * copies the string at once. The user_data must stay valid until the matching pop.
 */
typedef const char *(*graft_device_fn)(const graft_op *op, void *user_data);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_push_device_function(graft_graph *graph, graft_device_fn fn,
                                                                     void *user_data);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_pop_device(graft_graph *graph);

/*
 * Ops created inside are colocated with op: their "_class" attribute lists its colocation
 * groups ("loc:@name"), and they take its device. With ignore_existing, enclosing colocation
 * scopes are not applied.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_push_colocation(graft_graph *graph, graft_op *op,
                                                                graft_bool ignore_existing);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_pop_colocation(graft_graph *graph);

/* Stateful ops with a "container" attribute created inside get this container ("" = default). */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_push_container(graft_graph *graph, const char *container);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_pop_container(graft_graph *graph);

/*
 * Ops of type op_types[i] created inside use the gradient registered as gradient_names[i]
 * (TensorFlow's gradient_override_map; it sets the op's "_gradient_op_type" attribute).
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_push_gradient_override_map(graft_graph *graph,
                                                                           const char *const *op_types,
                                                                           const char *const *gradient_names, int n);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_pop_gradient_override_map(graft_graph *graph);

/* ---- Feeding and fetching --------------------------------------------------------------- */

GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_prevent_feeding(graft_graph *graph, graft_output tensor);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_prevent_fetching(graft_graph *graph, graft_op *op);
GRAFT_API graft_bool graft_graph_is_feedable(const graft_graph *graph, graft_output tensor);
/* An op is fetchable unless prevented; a tensor is fetchable when its op is. */
GRAFT_API graft_bool graft_graph_is_fetchable(const graft_graph *graph, const graft_op *op);

/* ---- Random seeds ------------------------------------------------------------------------ */

/*
 * The graph-level seed (tf.compat.v1.set_random_seed): set_seed with has_seed 0 clears it;
 * graft_graph_seed returns 0 when none is set, else 1 with the seed in *out.
 */
GRAFT_API void graft_graph_set_seed(graft_graph *graph, graft_bool has_seed, int64_t seed);
GRAFT_API graft_bool graft_graph_seed(int64_t *out, const graft_graph *graph);
/*
 * The two seeds an op should use (TensorFlow's get_seed), from the graph seed and the op's
 * own seed (has_op_seed 0 when it has none). *out_has_seeds is 0 when neither is set (the op
 * then draws fresh randomness); otherwise *out_seed and *out_seed2 hold the pair.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_op_seeds(graft_bool *out_has_seeds, int64_t *out_seed,
                                                         int64_t *out_seed2, const graft_graph *graph,
                                                         graft_bool has_op_seed, int64_t op_seed);

GRAFT_END_DECL

#endif /* GRAFT_GRAPH_H */
