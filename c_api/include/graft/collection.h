/*
 * graft/collection.h: a graph's collections (TensorFlow's tf.add_to_collection and
 * tf.get_collection): named lists of ops, tensors, strings and host values.
 *
 * Ownership: graft_graph_get_collection gives a copy the caller frees with
 * graft_collection_free; graft_graph_get_collection_ref a borrowed, live list valid as long as
 * the graph. Strings read back from items belong to the collection and are valid until it
 * changes (append, remove, clear; for a live list also graft_graph_add_to_collection*) or is
 * freed. Ops and tensors in items are borrowed from the graph (a copy does not keep it alive).
 *
 * Threading: as the graph's construction calls (graft/graph.h): one thread at a time.
 */
#ifndef GRAFT_COLLECTION_H
#define GRAFT_COLLECTION_H

#include "graft/common.h"
#include "graft/graph.h"

GRAFT_BEGIN_DECL

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

typedef int32_t graft_item_kind;
enum graft_item_kind_value {
  GRAFT_ITEM_OP = 1,     /* an op of the graph */
  GRAFT_ITEM_TENSOR = 2, /* a tensor of the graph */
  GRAFT_ITEM_STRING = 3, /* a string (has no name for scope filters) */
  GRAFT_ITEM_VALUE = 4   /* a host value: an id of the host's choosing, with an optional name */
};

/*
 * One item of a collection. Strings are copied in; read back, they are borrowed from the
 * collection (see Ownership above).
 */
typedef struct graft_collection_item {
  graft_item_kind kind;
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
/*
 * Item index into *out. Its string is borrowed from the collection: valid until the
 * collection changes or is freed (copy it to keep it); its op or tensor is borrowed from the
 * graph. GRAFT_ERANGE for an index out of range.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_collection_item_at(graft_collection_item *out,
                                                             const graft_collection *collection, int64_t index);
/* Appends item (its string is copied). A live list's change is the graph's. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_collection_append(graft_collection *collection,
                                                            const graft_collection_item *item);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_collection_remove(graft_collection *collection, int64_t index);
GRAFT_API void graft_collection_clear(graft_collection *collection);

GRAFT_END_DECL

#endif /* GRAFT_COLLECTION_H */
