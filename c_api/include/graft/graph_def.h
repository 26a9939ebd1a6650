/*
 * graft/graph_def.h: reading and writing TensorFlow's GraphDef protocol buffer.
 *
 * Export writes a graph as GraphDef bytes that TensorFlow loads: every op with its inputs
 * ("name", "name:1", "^control"), attributes and device, the versions, and the function
 * library. The bytes are deterministic: the same graph gives the same bytes.
 *
 * Import adds the ops of a GraphDef to a graph, under a name prefix ("import" by default,
 * made unique like a name scope; "" for none), with inputs of the GraphDef optionally mapped
 * to tensors of the graph, and returns the ops and tensors asked for. Node order in the bytes
 * does not matter; TensorFlow 1 loops (NextIteration back edges) are accepted, other cycles
 * are not. Attributes missing from a node are filled from the op's defaults. An import is
 * all or nothing: on any error the graph is unchanged, and the message names the node (and
 * field) at fault.
 *
 * Ownership: byte buffers returned through `void **out` are freed with graft_buffer_free;
 * options and results with their _free functions. Results borrow ops from the graph.
 * Threading: export may run while other threads read the graph; import changes it (one
 * thread, as any graph construction).
 */
#ifndef GRAFT_GRAPH_DEF_H
#define GRAFT_GRAPH_DEF_H

#include "graft/common.h"
#include "graft/graph.h"

GRAFT_BEGIN_DECL

/*
 * Serializes the graph. from_version >= 0 keeps only ops added after the graph had that
 * version (graft_graph_version); -1 keeps all. add_shapes adds each op's inferred output
 * shapes as the "_output_shapes" attribute. Free *out_data with graft_buffer_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_export_graph_def(void **out_data, size_t *out_len,
                                                                 const graft_graph *graph, int64_t from_version,
                                                                 graft_bool add_shapes);

typedef struct graft_import_options graft_import_options;
typedef struct graft_import_results graft_import_results;

/* New default options; free *out with graft_import_options_free (an import does not consume them). */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_import_options_new(graft_import_options **out);
/* Frees the options. NULL is a harmless no-op. */
GRAFT_API void graft_import_options_free(graft_import_options *options);
/* The name prefix (default "import"). A prefix ending in '/' is used exactly. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_import_options_set_prefix(graft_import_options *options, const char *prefix);
/* Uses tensor `replacement` of the target graph wherever the GraphDef uses tensor `name` ("x:0"). */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_import_options_add_input_map(graft_import_options *options, const char *name,
                                                                       graft_output replacement);
/* Uses op `replacement` wherever the GraphDef has the control input "^name". */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_import_options_add_control_input_map(graft_import_options *options,
                                                                               const char *name, graft_op *replacement);
/* Asks for an element by its name in the GraphDef: "op" (an op) or "op:i" (a tensor). */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_import_options_add_return_element(graft_import_options *options,
                                                                            const char *name);

/*
 * Imports serialized GraphDef bytes into graph. options may be NULL for the defaults.
 * out_results (may be NULL) receives the elements asked for, in the order asked: set only on
 * success, freed with graft_import_results_free (the ops it names are borrowed from graph).
 * GRAFT_EDATALOSS for bytes that do not parse; GRAFT_ENOTFOUND for unknown op types and
 * references to missing nodes or outputs; GRAFT_EINVAL / GRAFT_EDTYPE / GRAFT_ESHAPE for nodes
 * that do not fit their op; GRAFT_EEXISTS for duplicate node names.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_import_graph_def(graft_import_results **out_results, graft_graph *graph,
                                                                 const void *data, size_t len,
                                                                 const graft_import_options *options);

/* Frees the results (not the ops they name). NULL is a harmless no-op. */
GRAFT_API void graft_import_results_free(graft_import_results *results);
GRAFT_API int graft_import_results_num_elements(const graft_import_results *results);
/*
 * Element index: an op (*out_op set, *out_tensor {NULL, -1}) or a tensor (*out_tensor set,
 * *out_op NULL). The ops are borrowed from the graph imported into: valid as long as the graph,
 * also after graft_import_results_free. GRAFT_ERANGE for an index out of range.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_import_results_element(graft_op **out_op, graft_output *out_tensor,
                                                                 const graft_import_results *results, int index);

/*
 * The GraphDef versions the graph carries: those of the first GraphDef imported into an empty
 * graph, else Graft's own (producer = the TensorFlow graph version whose semantics Graft
 * implements, min_consumer = 0).
 */
GRAFT_API void graft_graph_def_versions(int32_t *out_producer, int32_t *out_min_consumer, const graft_graph *graph);

/*
 * The functions in the graph's function library (imported or traced), by name; NULL when index
 * is out of range. The name is borrowed from the graph: valid while the graph lives and no
 * function is added to its library (copy it to keep it).
 */
GRAFT_API int graft_graph_num_functions(const graft_graph *graph);
GRAFT_API const char *graft_graph_function_name(const graft_graph *graph, int index);

GRAFT_END_DECL

#endif /* GRAFT_GRAPH_DEF_H */
