// Data-dependent control flow for eager execution and tracing: cond and while_loop. Eagerly
// they run the host callbacks directly (the predicate is a concrete value). While tracing,
// the branches (cond) or the condition and body (while_loop) are traced as functions and
// recorded as If / StatelessIf or While / StatelessWhile ops, whose kernels run them; what the
// branches capture from outside is passed to the op as extra inputs.
#pragma once

#include <optional>
#include <vector>

#include "core/eager/polymorphic_function.h"

namespace graft::eager {

// cond(pred, then_fn, else_fn): each branch gets `inputs` as its arguments and returns the
// same number and dtypes of outputs. pred: a scalar (bool, or a number: true when non-zero).
Status Cond(Context& ctx, const Value& pred, const std::vector<Value>& inputs, const TraceFn& then_fn,
            const TraceFn& else_fn, std::vector<Value>* outputs);

// while cond_fn(vars): vars = body_fn(vars). cond_fn returns one scalar; body_fn returns as
// many values as there are loop variables, of the same dtypes. While tracing, as TensorFlow's
// while_loop: loop variable i is traced with shape shape_invariants[i] when given (an entry
// or the whole vector may be absent), else with its entry shape, which must be at least as
// specific as its invariant; each body output must be at least as specific as the shape its
// variable was traced with (else an error naming the variable and both shapes), and the loop's
// outputs have those shapes.
Status WhileLoop(Context& ctx, const TraceFn& cond_fn, const TraceFn& body_fn, const std::vector<Value>& loop_vars,
                 std::vector<Value>* outputs, const std::vector<std::optional<PartialShape>>& shape_invariants = {});

}  // namespace graft::eager
