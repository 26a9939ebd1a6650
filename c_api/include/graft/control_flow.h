/*
 * graft/control_flow.h: functional control flow on a context, eager or traced (tf.cond,
 * tf.while_loop). Branches, conditions and bodies are callbacks of the same kind as a traced
 * function's (graft_trace_fn, graft/function.h): they build ops on the context they are given.
 *
 * Ownership: outputs are new graft_value handles (free with graft_value_free); the callbacks'
 * data pointers are passed through and must outlive the call.
 *
 * Threading: as graft/eager.h: a context may be used from many threads; a trace belongs to the
 * thread that runs it.
 */
#ifndef GRAFT_CONTROL_FLOW_H
#define GRAFT_CONTROL_FLOW_H

#include "graft/common.h"
#include "graft/eager.h"
#include "graft/function.h"
#include "graft/shape.h"

GRAFT_BEGIN_DECL

/*
 * cond(pred, then_fn, else_fn): pred is a scalar (bool, or a number: true when non-zero); each
 * branch is called with inputs[0..ninputs) as its arguments and appends its outputs (the same
 * number and dtypes in both). Eagerly the chosen branch runs at once; while tracing both are
 * traced as functions and recorded as an If (StatelessIf when neither has side effects) op.
 * *noutputs receives the number of outputs; outputs[0..min(capacity, *noutputs)) new handles,
 * each freed with graft_value_free. The user_data pointers are borrowed for the call only.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_cond(graft_value **outputs, int capacity, int *noutputs, graft_context *ctx,
                                               const graft_value *pred, const graft_value *const *inputs, int ninputs,
                                               graft_trace_fn then_fn, void *then_user_data, graft_trace_fn else_fn,
                                               void *else_user_data);

/*
 * while cond_fn(vars): vars = body_fn(vars), from loop_vars. cond_fn appends one scalar;
 * body_fn appends one value per loop variable, of the same dtype. Eagerly the loop runs at once
 * (shapes may change). While tracing both are traced as functions and recorded as a While
 * (StatelessWhile) op, with TensorFlow's shape rule: each loop variable is traced with its entry
 * shape, and the body must return a value of that shape (or a more specific one); else
 * GRAFT_EINVAL naming the variable and both shapes. A variable whose shape changes needs a
 * shape invariant (graft_while_loop_with_shapes). Outputs: the final loop variables, as
 * graft_cond's: new handles, each freed with graft_value_free. The user_data pointers are
 * borrowed for the call only.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_while_loop(graft_value **outputs, int capacity, int *noutputs,
                                                     graft_context *ctx, graft_trace_fn cond_fn, void *cond_user_data,
                                                     graft_trace_fn body_fn, void *body_user_data,
                                                     const graft_value *const *loop_vars, int nvars);

/*
 * graft_while_loop with shape invariants (TensorFlow's shape_invariants): shape_invariants is
 * NULL or holds nvars entries, each NULL (the variable's entry shape) or a shape (borrowed for
 * the call) that the variable's entry shape must be at least as specific as (unknown dims and
 * an unknown rank admit any); the variable is traced with it, and the loop's output has it.
 */
GRAFT_API GRAFT_MUST_USE_RESULT int graft_while_loop_with_shapes(graft_value **outputs, int capacity, int *noutputs,
                                                                 graft_context *ctx, graft_trace_fn cond_fn,
                                                                 void *cond_user_data, graft_trace_fn body_fn,
                                                                 void *body_user_data,
                                                                 const graft_value *const *loop_vars, int nvars,
                                                                 const graft_shape *const *shape_invariants);

GRAFT_END_DECL

#endif /* GRAFT_CONTROL_FLOW_H */
