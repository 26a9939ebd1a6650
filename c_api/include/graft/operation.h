/*
 * graft/operation.h: the operations of a graph (graft/graph.h) and their tensors.
 *
 * Ops are created with an op description: graft_op_desc_new, then inputs and attributes
 * (graft/attrs.h), then graft_op_desc_finish. Creating an op checks everything (op type, input
 * count and dtypes, attributes, name) and infers its output dtypes and shapes; on failure the
 * graph is unchanged. An op's inputs, outputs, attributes and consumers can be read back.
 *
 * Ownership: graft_op pointers are borrowed from their graph: they stay valid, and keep their
 * address, as long as the graph. Strings returned as const char * belong to the op. Handles
 * returned through out-parameters say per function how they are freed.
 *
 * Threading: create ops from one thread at a time per graph; reading ops may be done from any
 * number of threads at once, also while another thread adds ops.
 */
#ifndef GRAFT_OPERATION_H
#define GRAFT_OPERATION_H

#include "graft/attrs.h"
#include "graft/common.h"
#include "graft/dtype.h"
#include "graft/graph.h"
#include "graft/shape.h"
#include "graft/tensor.h"

GRAFT_BEGIN_DECL

/* ---- Creating ops ---------------------------------------------------------------------- */

/*
 * Starts describing an op of type op_type. name: NULL for the op type; a name ending in '/'
 * is used exactly (less the '/'); any other name is made unique under the current name scope.
 * Free the description with graft_op_desc_free unless it is given to graft_op_desc_finish,
 * which consumes it. A description belongs to one thread at a time.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_desc_new(graft_op_desc **out, graft_graph *graph, const char *op_type,
                                                      const char *name);
/* Frees a description that was not given to graft_op_desc_finish. NULL is a harmless no-op. */
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

/*
 * The op's name, type and device ("" when it has none; canonical: "/job:ps/device:GPU:0").
 * Borrowed from the op: valid as long as its graph (they never change); do not free them.
 */
GRAFT_API const char *graft_op_name(const graft_op *op);
GRAFT_API const char *graft_op_type(const graft_op *op);
GRAFT_API const char *graft_op_device(const graft_op *op);
/* The op's graph (borrowed: valid while the graph lives; graft_graph_share keeps it). */
GRAFT_API graft_graph *graft_op_graph(const graft_op *op);
/* 1, 2, ... in creation order. */
GRAFT_API int64_t graft_op_id(const graft_op *op);
GRAFT_API graft_bool graft_op_is_stateful(const graft_op *op);

GRAFT_API int graft_op_num_inputs(const graft_op *op);
/* Input i (its op borrowed from the graph); {NULL, -1} when i is out of range. */
GRAFT_API graft_output graft_op_input(const graft_op *op, int index);
/* The dtype input i is consumed as (a reference dtype for reference inputs). */
GRAFT_API graft_dtype graft_op_input_dtype(const graft_op *op, int index);
GRAFT_API int graft_op_num_outputs(const graft_op *op);
/* Control input index (NULL when out of range): borrowed from the graph, valid as long as it. */
GRAFT_API int graft_op_num_control_inputs(const graft_op *op);
GRAFT_API graft_op *graft_op_control_input(const graft_op *op, int index);
/*
 * Ops that have this op as a control input (NULL when index is out of range): borrowed from the
 * graph, valid as long as it. The list grows as ops are added.
 */
GRAFT_API int graft_op_num_control_outputs(const graft_op *op);
GRAFT_API graft_op *graft_op_control_output(const graft_op *op, int index);

/* Colocation groups: "loc:@name" entries of the "_class" attribute, or the op's own group. */
GRAFT_API int graft_op_num_colocation_groups(const graft_op *op);
/* Group index; free *out with graft_string_free. GRAFT_ERANGE for an index out of range. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_colocation_group(char **out, const graft_op *op, int index);

/*
 * Attributes, including those filled in from defaults. Names are in sorted order; NULL when
 * index is out of range. A name is borrowed from the op: valid as long as its graph.
 */
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
/*
 * A string attribute: *out_length bytes at *out (they may hold NULs). Borrowed from the op:
 * valid as long as its graph (attributes never change once the op exists); do not free them.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_string(const char **out, size_t *out_length,
                                                             const graft_op *op, const char *name);
/* A shape attribute as a new shape; free *out with graft_shape_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_shape(graft_shape **out, const graft_op *op, const char *name);
/* A new handle to the attribute's tensor (no copy of the data); free it with graft_tensor_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_tensor(graft_tensor **out, const graft_op *op, const char *name);
/* The function's name; borrowed from the op (belongs to it, valid as long as its graph). */
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
/*
 * Element index of a list attribute (GRAFT_ERANGE when out of range). A string's bytes are
 * borrowed from the op, as graft_op_get_attr_string's.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_string_list_item(const char **out, size_t *out_length,
                                                                       const graft_op *op, const char *name,
                                                                       int index);
/* A new shape: free *out with graft_shape_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_op_get_attr_shape_list_item(graft_shape **out, const graft_op *op,
                                                                      const char *name, int index);
/* A new handle to the tensor (no copy of the data): free *out with graft_tensor_free. */
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
/*
 * The ops that consume this tensor: consumer i is input *out_input_index of *out_op, which is
 * borrowed from the graph (valid as long as it). The list grows as ops are added.
 */
GRAFT_API int graft_output_num_consumers(graft_output output);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_output_consumer(graft_op **out_op, int *out_input_index,
                                                          graft_output output, int index);

GRAFT_END_DECL

#endif /* GRAFT_OPERATION_H */
