"""Static shapes through graft.cond and graft.while_loop in traced functions, as TensorFlow's:
a loop variable keeps its shape unless a shape invariant relaxes it, and a cond's output has the
most specific shape both branches give."""
import numpy as np
import pytest

import graft


def test_loop_variables_keep_their_static_shapes():
    seen = {}

    @graft.function
    def f(x):
        i0 = graft.constant(0)
        _, y = graft.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2.0), [i0, x])
        seen["shape"] = y.shape
        return y

    out = f(graft.constant(np.ones((2, 3), np.float32)))
    assert seen["shape"].as_list() == [2, 3]
    np.testing.assert_allclose(out.numpy(), np.full((2, 3), 8.0))


def test_a_changing_shape_needs_a_shape_invariant():
    @graft.function
    def f(x):
        return graft.while_loop(lambda v: graft.size(v) < 8, lambda v: graft.concat([v, v], 0), [x])

    with pytest.raises(graft.errors.InvalidArgumentError, match=r"enters the loop with shape \(1,\), but has shape "
                                                                  r"\(2,\) after one iteration"):
        f(graft.constant([1.0]))


def test_shape_invariants_relax_the_shape():
    seen = {}

    @graft.function
    def f(x):
        (y,) = graft.while_loop(lambda v: graft.size(v) < 8, lambda v: [graft.concat([v, v], 0)], [x],
                                shape_invariants=[graft.TensorShape([None])])
        seen["shape"] = y.shape
        return y

    out = f(graft.constant([1.0]))
    assert seen["shape"].as_list() == [None]
    np.testing.assert_allclose(out.numpy(), np.ones(8))


def test_a_shape_invariant_must_fit_the_entry_shape():
    @graft.function
    def f(x):
        return graft.while_loop(lambda v: graft.size(v) < 8, lambda v: graft.concat([v, v], 0), [x],
                                shape_invariants=[graft.TensorShape([3])])

    with pytest.raises(graft.errors.InvalidArgumentError, match="not compatible with its initial shape"):
        f(graft.constant([1.0]))
    with pytest.raises(ValueError, match="2 shapes for 1 loop variables"):
        graft.function(lambda x: graft.while_loop(lambda v: True, lambda v: v, [x],
                                                  shape_invariants=[None, None]))(graft.constant([1.0]))


def test_cond_outputs_have_the_branches_common_shape():
    seen = {}

    @graft.function
    def f(p, x):
        same = graft.cond(p, lambda: x * 2.0, lambda: x - 1.0)
        differ = graft.cond(p, lambda: x, lambda: graft.concat([x, x], 0))
        seen["same"], seen["differ"] = same.shape, differ.shape
        return same, differ

    a, b = f(graft.constant(False), graft.constant([1.0, 2.0]))
    assert seen["same"].as_list() == [2]
    assert seen["differ"].as_list() == [None]
    np.testing.assert_allclose(a.numpy(), [0.0, 1.0])
    np.testing.assert_allclose(b.numpy(), [1.0, 2.0, 1.0, 2.0])


def test_eager_loops_may_change_shapes_freely():
    (y,) = graft.while_loop(lambda v: graft.size(v) < 8, lambda v: [graft.concat([v, v], 0)], [graft.constant([1.0])])
    assert y.shape.as_list() == [8]
