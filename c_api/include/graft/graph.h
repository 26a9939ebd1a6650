/*
 * graft/graph.h: dataflow graphs with TensorFlow's construction semantics.
 *
 * A graft_graph holds operations (graft_op) whose outputs (graft_output: an op and an output
 * index, TensorFlow's symbolic Tensor) feed other operations. Ops are created with an op
 * description: graft_op_desc_new, then inputs and attributes, then graft_op_desc_finish.
 * Creating an op checks everything (op type, input count and dtypes, attributes, name) and
 * infers its output dtypes and shapes; on failure the graph is unchanged.
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

#include "graft/attrs.h"
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

/* The number of ops, and op i in creation order (NULL when i is out of range). */
GRAFT_API int64_t graft_graph_num_ops(const graft_graph *graph);
GRAFT_API graft_op *graft_graph_op(const graft_graph *graph, int64_t index);

/* The op of this name (borrowed). GRAFT_ENOTFOUND if there is none. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_op_by_name(graft_op **out, const graft_graph *graph, const char *name);
/* The tensor "op:i" ("op" means "op:0"). GRAFT_ENOTFOUND / GRAFT_EINVAL naming what is wrong. */
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
/* The current name scope without a trailing '/' ("" at the top). Valid until the scope changes. */
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
 * and attributes are set) and the payload; returns the op's device, or NULL for none. Graft
 * copies the string at once. The payload must stay valid until the matching pop.
 */
typedef const char *(*graft_device_fn)(const graft_op *op, void *payload);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_push_device_function(graft_graph *graph, graft_device_fn fn,
                                                                     void *payload);
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

/* ---- Creating ops ---------------------------------------------------------------------- */

/*
 * Starts describing an op of type op_type. name: NULL for the op type; a name ending in '/'
 * is used exactly (less the '/'); any other name is made unique under the current name scope.
 * Free the description with graft_op_desc_free unless it is given to graft_op_desc_finish.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_desc_new(graft_op_desc **out, graft_graph *graph, const char *op_type,
                                                      const char *name);
GRAFT_API void graft_op_desc_free(graft_op_desc *desc);

/* Inputs, in the order of the op's input arguments: one tensor, or a list for list arguments. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_desc_add_input(graft_op_desc *desc, graft_output input);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_desc_add_input_list(graft_op_desc *desc, const graft_output *inputs, int n);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_desc_add_control_input(graft_op_desc *desc, graft_op *op);
/* An explicit device; without it the device comes from the graph's device scopes. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_desc_set_device(graft_op_desc *desc, const char *device);

/* The description's attributes (graft/attrs.h); borrowed, valid until the description is finished
 * or freed. Missing attributes with defaults are filled in at finish. NULL only for a NULL desc. */
GRAFT_API graft_attrs *graft_op_desc_attrs(graft_op_desc *desc);

/*
 * Creates the op and adds it to the graph; *out is borrowed from the graph. The description
 * is consumed (freed) whether or not this succeeds. Errors name the op and the problem:
 * GRAFT_ENOTFOUND for an unknown op type, GRAFT_EINVAL for a wrong number of inputs, a missing
 * or ill-typed attribute, a value that is not allowed or an invalid name, GRAFT_EDTYPE for an
 * input of the wrong dtype, GRAFT_ESHAPE for incompatible shapes, GRAFT_EEXISTS for a name
 * that is taken, GRAFT_EPRECONDITION for a finalized graph. The graph is unchanged on failure.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_desc_finish(graft_op **out, graft_op_desc *desc);

/*
 * Closes a TensorFlow 1 while loop: input `index` of Merge op `merge` (created with a
 * placeholder input, usually the loop's Enter twice) becomes `next`, the output of the loop's
 * NextIteration op, which can only be made after the Merge. No other edge can be changed, so
 * graphs stay acyclic apart from loops. GRAFT_EINVAL for other op types, GRAFT_EDTYPE for a
 * dtype that does not match.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_update_merge_input(graft_graph *graph, graft_op *merge, int index,
                                                                   graft_output next);

/* ---- Ops ------------------------------------------------------------------------------- */

GRAFT_API const char *graft_op_name(const graft_op *op);
GRAFT_API const char *graft_op_type(const graft_op *op);
/* The op's device ("" when it has none), canonical: "/job:ps/device:GPU:0". */
GRAFT_API const char *graft_op_device(const graft_op *op);
/* The op's graph (borrowed: valid while the graph lives; graft_graph_share keeps it). */
GRAFT_API graft_graph *graft_op_graph(const graft_op *op);
/* 1, 2, ... in creation order. */
GRAFT_API int64_t graft_op_id(const graft_op *op);
GRAFT_API graft_bool graft_op_is_stateful(const graft_op *op);

GRAFT_API int graft_op_num_inputs(const graft_op *op);
/* Input i; {NULL, -1} when i is out of range. */
GRAFT_API graft_output graft_op_input(const graft_op *op, int index);
/* The dtype input i is consumed as (a reference dtype for reference inputs). */
GRAFT_API graft_dtype graft_op_input_dtype(const graft_op *op, int index);
GRAFT_API int graft_op_num_outputs(const graft_op *op);
GRAFT_API int graft_op_num_control_inputs(const graft_op *op);
GRAFT_API graft_op *graft_op_control_input(const graft_op *op, int index);
/* Ops that have this op as a control input. */
GRAFT_API int graft_op_num_control_outputs(const graft_op *op);
GRAFT_API graft_op *graft_op_control_output(const graft_op *op, int index);

/* Colocation groups: "loc:@name" entries of the "_class" attribute, or the op's own group. */
GRAFT_API int graft_op_num_colocation_groups(const graft_op *op);
/* Group index; free *out with graft_string_free. GRAFT_ERANGE for an index out of range. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_colocation_group(char **out, const graft_op *op, int index);

/* Attributes, including those filled in from defaults. Names are in sorted order. */
GRAFT_API int graft_op_num_attrs(const graft_op *op);
GRAFT_API const char *graft_op_attr_name(const graft_op *op, int index);
/* The attribute's type and, for lists, its length. GRAFT_ENOTFOUND naming the attribute. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_attr_type(graft_attr_type *out_type, int *out_list_size,
                                                       const graft_op *op, const char *name);
/* Typed getters: GRAFT_ENOTFOUND if missing, GRAFT_EINVAL (naming both types) if of another type. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_int(int64_t *out, const graft_op *op, const char *name);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_float(float *out, const graft_op *op, const char *name);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_bool(graft_bool *out, const graft_op *op, const char *name);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_type(graft_dtype *out, const graft_op *op, const char *name);
/* The bytes belong to the op. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_string(const char **out, size_t *out_length,
                                                             const graft_op *op, const char *name);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_shape(graft_shape **out, const graft_op *op, const char *name);
/* A new handle to the attribute's tensor (no copy of the data); free it with graft_tensor_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_tensor(graft_tensor **out, const graft_op *op, const char *name);
/* The function's name; belongs to the op. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_func(const char **out, const graft_op *op, const char *name);
/* List getters copy up to capacity elements into out; GRAFT_ERANGE if capacity is too small. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_int_list(int64_t *out, int capacity, const graft_op *op,
                                                               const char *name);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_float_list(float *out, int capacity, const graft_op *op,
                                                                 const char *name);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_bool_list(graft_bool *out, int capacity, const graft_op *op,
                                                                const char *name);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_type_list(graft_dtype *out, int capacity, const graft_op *op,
                                                                const char *name);
/* Element index of a list attribute. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_string_list_item(const char **out, size_t *out_length,
                                                                       const graft_op *op, const char *name,
                                                                       int index);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_shape_list_item(graft_shape **out, const graft_op *op,
                                                                      const char *name, int index);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_tensor_list_item(graft_tensor **out, const graft_op *op,
                                                                       const char *name, int index);

/* ---- Tensors of a graph ----------------------------------------------------------------- */

/* GRAFT_DTYPE_INVALID for an output that does not exist. */
GRAFT_API graft_dtype graft_output_dtype(graft_output output);
/* The inferred (or set) partial shape; free it with graft_shape_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_output_shape(graft_shape **out, graft_output output);
/* Merges shape into the tensor's shape (TensorFlow's set_shape). GRAFT_ESHAPE if incompatible. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_output_set_shape(graft_output output, const graft_shape *shape);
/* "op:index"; free it with graft_string_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_output_name(char **out, graft_output output);
/* The ops that consume this tensor: consumer i is input *out_input_index of *out_op. */
GRAFT_API int graft_output_num_consumers(graft_output output);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_output_consumer(graft_op **out_op, int *out_input_index,
                                                          graft_output output, int index);

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

/* ---- Collections ------------------------------------------------------------------------- */

/* Standard collection keys (TensorFlow's GraphKeys). */
#define GRAFT_GRAPH_KEY_GLOBAL_VARIABLES "variables"
#define GRAFT_GRAPH_KEY_VARIABLES "variables"
#define GRAFT_GRAPH_KEY_LOCAL_VARIABLES "local_variables"
#define GRAFT_GRAPH_KEY_MODEL_VARIABLES "model_variables"
#define GRAFT_GRAPH_KEY_TRAINABLE_VARIABLES "trainable_variables"
#define GRAFT_GRAPH_KEY_SUMMARIES "summaries"
#define GRAFT_GRAPH_KEY_QUEUE_RUNNERS "queue_runners"
#define GRAFT_GRAPH_KEY_TABLE_INITIALIZERS "table_initializer"
#define GRAFT_GRAPH_KEY_ASSET_FILEPATHS "asset_filepaths"
#define GRAFT_GRAPH_KEY_MOVING_AVERAGE_VARIABLES "moving_average_variables"
#define GRAFT_GRAPH_KEY_REGULARIZATION_LOSSES "regularization_losses"
#define GRAFT_GRAPH_KEY_CONCATENATED_VARIABLES "concatenated_variables"
#define GRAFT_GRAPH_KEY_SAVERS "savers"
#define GRAFT_GRAPH_KEY_WEIGHTS "weights"
#define GRAFT_GRAPH_KEY_BIASES "biases"
#define GRAFT_GRAPH_KEY_ACTIVATIONS "activations"
#define GRAFT_GRAPH_KEY_UPDATE_OPS "update_ops"
#define GRAFT_GRAPH_KEY_LOSSES "losses"
#define GRAFT_GRAPH_KEY_INIT_OP "init_op"
#define GRAFT_GRAPH_KEY_LOCAL_INIT_OP "local_init_op"
#define GRAFT_GRAPH_KEY_READY_OP "ready_op"
#define GRAFT_GRAPH_KEY_SUMMARY_OP "summary_op"
#define GRAFT_GRAPH_KEY_GLOBAL_STEP "global_step"
#define GRAFT_GRAPH_KEY_TRAIN_OP "train_op"
#define GRAFT_GRAPH_KEY_COND_CONTEXT "cond_context"
#define GRAFT_GRAPH_KEY_WHILE_CONTEXT "while_context"

typedef enum graft_item_kind {
  GRAFT_ITEM_OP = 1,     /* an op of the graph */
  GRAFT_ITEM_TENSOR = 2, /* a tensor of the graph */
  GRAFT_ITEM_STRING = 3, /* a string (has no name for scope filters) */
  GRAFT_ITEM_VALUE = 4   /* a host value: an id of the host's choosing, with an optional name */
} graft_item_kind;

/* One item of a collection. Strings are copied in; read back, they belong to the collection. */
typedef struct graft_collection_item {
  int kind;            /* a graft_item_kind */
  graft_op *op;        /* GRAFT_ITEM_OP */
  graft_output tensor; /* GRAFT_ITEM_TENSOR */
  const char *string;  /* GRAFT_ITEM_STRING: the string; GRAFT_ITEM_VALUE: its name or NULL */
  uint64_t value;      /* GRAFT_ITEM_VALUE */
} graft_collection_item;

/* A list of items: either a copy (owned, from graft_graph_get_collection) or a graph's live list. */
typedef struct graft_collection graft_collection;

/* Adds item to the collection `key` (created when missing). Collections are lists, not sets. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_add_to_collection(graft_graph *graph, const char *key,
                                                                  const graft_collection_item *item);
/* Adds item to each collection in keys, once per distinct key. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_add_to_collections(graft_graph *graph, const char *const *keys,
                                                                   int nkeys, const graft_collection_item *item);
/*
 * A copy of the collection (empty when it does not exist; it is not created). With scope
 * not NULL, only items with a name that scope matches at its start (a regular expression, as
 * Python's re.match; plain text filters by prefix). Free it with graft_collection_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_get_collection(graft_collection **out, const graft_graph *graph,
                                                               const char *key, const char *scope);
/*
 * The graph's live list for key, created empty when missing. Borrowed: valid as long as the
 * graph; changes to it (append, remove, clear) change the graph's collection.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_get_collection_ref(graft_collection **out, graft_graph *graph,
                                                                   const char *key);
/* All collection keys, sorted; free with graft_collection_free (items are GRAFT_ITEM_STRING). */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_collection_keys(graft_collection **out, const graft_graph *graph);

/* Frees a copy; does nothing for a live list. NULL is a harmless no-op. */
GRAFT_API void graft_collection_free(graft_collection *collection);
GRAFT_API int64_t graft_collection_size(const graft_collection *collection);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_collection_item_at(graft_collection_item *out,
                                                             const graft_collection *collection, int64_t index);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_collection_append(graft_collection *collection,
                                                            const graft_collection_item *item);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_collection_remove(graft_collection *collection, int64_t index);
GRAFT_API void graft_collection_clear(graft_collection *collection);

GRAFT_END_DECL

#endif /* GRAFT_GRAPH_H */
