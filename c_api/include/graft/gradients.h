/*
 * graft/gradients.h: symbolic gradients (TensorFlow's tf.gradients / TF_AddGradientsWithPrefix)
 * and what a gradient function registered from C (graft_gradient_register, graft/op_registry.h)
 * reads and sets.
 *
 * graft_graph_add_gradients adds to the graph the ops that compute the gradient of the sum of
 * ys with respect to each x, under a name scope ("gradients/...", made unique as any name
 * scope), and returns one output per x: the gradient, or {NULL, 0} where none flows (x does
 * not reach any y, or only through integer/bool tensors or ops registered as not
 * differentiable). Gradients from several consumers are summed (AddN); broadcasting is undone.
 *
 * Control flow is differentiable: functional If/StatelessIf and While/StatelessWhile (the
 * gradient functions of their branch/body functions are added to the graph's function library;
 * a While's gradient reruns the loop once, keeping each iteration's values, then runs the body's
 * gradient backwards), and TensorFlow 1 Switch/Merge conds and Enter/Exit/NextIteration loops,
 * also imported from a GraphDef (the loop is recovered from its frame). Only floating and complex
 * values carry gradients through function arguments and loop variables. A cycle that is not a
 * well-formed TensorFlow 1 loop is GRAFT_EINVAL naming the op or frame.
 *
 * Ownership: the returned outputs' ops are borrowed from the graph (they live as long as it).
 * On failure the graph is left as it was (every op and library function added is removed
 * again); an op on the path without a gradient function is GRAFT_ENOTFOUND, naming the op
 * and its type (and the function it is in, for an op inside a branch or loop body).
 *
 * Threading: as building any graph: from one thread at a time.
 */
#ifndef GRAFT_GRADIENTS_H
#define GRAFT_GRADIENTS_H

#include "graft/common.h"
#include "graft/graph.h"
#include "graft/op_registry.h"

GRAFT_BEGIN_DECL

/* What an x that no y depends on gets. */
typedef int32_t graft_unconnected_gradients;
enum graft_unconnected_gradients_value {
  GRAFT_UNCONNECTED_NONE = 0, /* {NULL, 0} */
  GRAFT_UNCONNECTED_ZERO = 1  /* zeros of x's shape and dtype */
};

/*
 * out_grads: nx outputs (filled only on success). grad_ys: NULL (ones of each y's shape) or
 * ny tensors, each of its y's dtype. scope: the name scope, NULL for "gradients".
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_add_gradients(graft_output *out_grads, graft_graph *graph,
                                                              const graft_output *ys, int ny, const graft_output *xs,
                                                              int nx, const graft_output *grad_ys, const char *scope);

/*
 * The same with every option: stop_gradients (nstop tensors, NULL when nstop is 0) are
 * treated as constants, as tf.gradients' stop_gradients; unconnected says what an x no y
 * depends on gets.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_add_gradients_ex(graft_output *out_grads, graft_graph *graph,
                                                                 const graft_output *ys, int ny,
                                                                 const graft_output *xs, int nx,
                                                                 const graft_output *grad_ys,
                                                                 const graft_output *stop_gradients, int nstop,
                                                                 graft_unconnected_gradients unconnected,
                                                                 const char *scope);

/*
 * The same, with gradients that come as rows kept as rows (TensorFlow's IndexedSlices): an x
 * whose gradient comes only from gathers (GatherV2 on axis 0, ResourceGather: an embedding
 * table) gets out_indices[i] (1-D, int32 or int64) and out_dense_shapes[i] (x's shape, 1-D
 * int32), and out_grads[i] holds the values, one row per index ([len(indices)] followed by x's
 * shape after its first dim); a row named twice gets both rows, to be added. Applying them with
 * ResourceScatterAdd/Sub touches only those rows. For every other x, out_indices[i] and
 * out_dense_shapes[i] are {NULL, 0} and out_grads[i] is what graft_graph_add_gradients_ex
 * gives. The three arrays hold nx outputs each (filled only on success); their ops are
 * borrowed from the graph, valid while it lives.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_graph_add_gradients_sparse(
    graft_output *out_grads, graft_output *out_indices, graft_output *out_dense_shapes, graft_graph *graph,
    const graft_output *ys, int ny, const graft_output *xs, int nx, const graft_output *grad_ys,
    const graft_output *stop_gradients, int nstop, graft_unconnected_gradients unconnected, const char *scope);

/* ---- Inside a gradient function registered with graft_gradient_register ----------------- */
/*
 * The context is valid during the call only. Ops the function makes (graft/operation.h, on
 * graft_gradient_context_graph) go under the op's gradient scope ("gradients/OP_grad/").
 */

/* The forward op (borrowed from the graph) and its graph (borrowed). */
GRAFT_API graft_op *graft_gradient_context_op(const graft_gradient_context *ctx);
GRAFT_API graft_graph *graft_gradient_context_graph(const graft_gradient_context *ctx);
/* The incoming gradient of the forward op's output `index`: {NULL, 0} when none flows back. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_gradient_context_output_grad(graft_output *out,
                                                                       const graft_gradient_context *ctx, int index);
/* Sets the gradient for the forward op's input `index` ({NULL, 0}: none, the default). */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_gradient_context_set_input_grad(graft_gradient_context *ctx, int index,
                                                                          graft_output grad);

GRAFT_END_DECL

#endif /* GRAFT_GRADIENTS_H */
