/*
 * graft/tape.h: gradient tapes (TensorFlow's tf.GradientTape).
 *
 * A tape records the eager ops that the thread which created it runs in its context, from
 * graft_tape_new until graft_tape_stop (or graft_tape_free): each op whose inputs the tape
 * tracks — watched values, variables read while it records (with watch_accessed_variables),
 * or outputs of ops it recorded — is kept with its input and output tensors. Concrete
 * functions called while a tape records run op by op, so that calls are differentiable too.
 * graft_tape_gradient then computes the gradients with the same gradient functions as
 * graft_graph_add_gradients (graft/gradients.h), running them as eager ops: a tape that is
 * recording around the call records them in turn, which gives second derivatives.
 *
 * Inside a traced function (graft/function.h) values are symbolic: graft_tape_gradient adds the
 * gradient ops to the traced graph and returns symbolic values (the gradient becomes part of
 * the function), and nothing needs to be recorded.
 *
 * Ownership: a tape is the caller's, freed with graft_tape_free before its context; the
 * gradients it returns are new values, freed with graft_value_free.
 *
 * Threading: a tape belongs to the thread that created it (recording, watching, gradients and
 * freeing all happen there), as TensorFlow's tapes.
 */
#ifndef GRAFT_TAPE_H
#define GRAFT_TAPE_H

#include "graft/common.h"
#include "graft/eager.h"
#include "graft/gradients.h"

GRAFT_BEGIN_DECL

typedef struct graft_tape graft_tape;

/*
 * A new tape of ctx, recording from now on on this thread. persistent: graft_tape_gradient may
 * be called more than once (otherwise a second call is GRAFT_EPRECONDITION and the recorded
 * tensors are released after the first). watch_accessed_variables: variables read while the
 * tape records are watched. Free *out with graft_tape_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_tape_new(graft_tape **out, graft_context *ctx, graft_bool persistent,
                                                   graft_bool watch_accessed_variables);
/* Stops recording (if it records) and frees the tape. NULL is a harmless no-op. */
GRAFT_API void graft_tape_free(graft_tape *tape);

/*
 * Pauses recording (TensorFlow's stop_recording) or resumes it. GRAFT_EPRECONDITION when the
 * tape is already stopped (stop) or recording (start), or records on another thread.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_tape_stop(graft_tape *tape);
GRAFT_API GRAFT_MUST_USE_RESULT int graft_tape_start(graft_tape *tape);
/* 1 while the tape records. */
GRAFT_API graft_bool graft_tape_is_recording(const graft_tape *tape);

/*
 * Watches value: a concrete tensor or a variable's handle (graft_variable_new). Integer, bool
 * and string values are ignored (no gradient flows through them), as TensorFlow does; a
 * symbolic value needs no watching.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_tape_watch(graft_tape *tape, const graft_value *value);

/* The variables watched so far (their handles), in the order first watched. */
GRAFT_API int graft_tape_num_watched_variables(const graft_tape *tape);
/* Handle i of the watched variables as a new value; free *out with graft_value_free. */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_tape_watched_variable(graft_value **out, const graft_tape *tape, int i);

/*
 * The gradient of the sum of targets with respect to each source: out_grads gets nsources new
 * values (filled only on success), NULL where no gradient flows and unconnected is
 * GRAFT_UNCONNECTED_NONE (zeros of the source's shape with GRAFT_UNCONNECTED_ZERO). A source
 * that is a variable's handle gets the gradient of the variable's value. output_gradients:
 * NULL (ones of each target's shape) or ntargets values, each of its target's dtype. An op on
 * the path with no gradient function is GRAFT_ENOTFOUND naming the op and its type. Free each
 * non-NULL out_grads[i] with graft_value_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_tape_gradient(graft_value **out_grads, graft_tape *tape,
                                                        const graft_value *const *targets, int ntargets,
                                                        const graft_value *const *sources, int nsources,
                                                        const graft_value *const *output_gradients,
                                                        graft_unconnected_gradients unconnected);

/*
 * The same, keeping the gradient of a source that only gathers read (ResourceGather of a
 * variable, GatherV2 on axis 0: an embedding table) as rows, TensorFlow's IndexedSlices: there
 * out_indices[i] (1-D int32 or int64) and out_dense_shapes[i] (the source's shape, 1-D int32)
 * are set and out_grads[i] holds the values, one row per index; elsewhere out_indices[i] and
 * out_dense_shapes[i] are NULL and out_grads[i] is as graft_tape_gradient gives it. All three
 * arrays get nsources entries (filled only on success); free each non-NULL value with
 * graft_value_free.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_tape_gradient_sparse(
    graft_value **out_grads, graft_value **out_indices, graft_value **out_dense_shapes, graft_tape *tape,
    const graft_value *const *targets, int ntargets, const graft_value *const *sources, int nsources,
    const graft_value *const *output_gradients, graft_unconnected_gradients unconnected);

GRAFT_END_DECL

#endif /* GRAFT_TAPE_H */
