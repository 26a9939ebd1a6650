"""graft.load_op_library (tf.load_op_library) with examples/plugin's library: ZeroOut eagerly, in
graft.function and in graph mode; Swish's gradient (the library's SwishGrad) through
graft.GradientTape and graft.gradients; loading twice; a bad path.

The library is GRAFT_EXAMPLE_OPS (ctest's python.pytest sets it to the built
libgraft_example_ops.so); run by hand without it, the tests that need it are skipped."""
import os

import numpy as np
import pytest

import graft

LIBRARY = os.environ.get("GRAFT_EXAMPLE_OPS")

v1 = graft.compat.v1


@pytest.fixture(scope="module")
def ops():
    if not LIBRARY:
        pytest.skip("GRAFT_EXAMPLE_OPS is not set: set it to the built examples/plugin/libgraft_example_ops.so "
                    "(ctest's python.pytest sets it)")
    return graft.load_op_library(LIBRARY)


def _swish_and_slope(x):
    s = 1.0 / (1.0 + np.exp(-x))
    return x * s, s + x * s * (1.0 - s)


def test_module_has_one_function_per_op(ops):
    assert ops.OP_NAMES == ("ZeroOut", "Swish", "SwishGrad")
    assert ops.__all__ == ["zero_out", "swish", "swish_grad"]
    assert callable(ops.zero_out) and callable(ops.swish) and callable(ops.swish_grad)
    assert ops.zero_out.__name__ == "zero_out"
    assert os.path.samefile(ops.__file__, LIBRARY)
    assert "graft_example_ops" in ops.__name__


def test_zero_out_eager(ops):
    out = ops.zero_out([5, 3, 1, 9])
    assert isinstance(out, graft.EagerTensor)
    assert out.dtype == graft.int32
    np.testing.assert_array_equal(out.numpy(), [5, 0, 0, 0])
    np.testing.assert_array_equal(ops.zero_out(graft.constant([[7, 8], [9, 10]])).numpy(), [[7, 0], [0, 0]])
    with pytest.raises(graft.errors.InvalidArgumentError):
        ops.zero_out([1.5, 2.5])  # to_zero is int32


def test_zero_out_in_function(ops):
    traces = []

    @graft.function
    def f(x):
        traces.append(1)
        return ops.zero_out(x + 1)

    np.testing.assert_array_equal(f(graft.constant([1, 2, 3])).numpy(), [2, 0, 0])
    np.testing.assert_array_equal(f(graft.constant([4, 5, 6])).numpy(), [5, 0, 0])
    assert len(traces) == 1
    graph = f.get_concrete_function(graft.TensorSpec([3], graft.int32)).graph
    assert "ZeroOut" in [op.type for op in graph.get_operations()]


def test_zero_out_in_graph_mode(ops):
    with graft.Graph().as_default():
        x = v1.placeholder(graft.int32, shape=[None])
        y = ops.zero_out(x, name="zeroed")
        assert y.op.type == "ZeroOut" and y.op.name == "zeroed"
        assert y.shape.as_list() == [None]  # the library's shape function
        with v1.Session() as sess:
            np.testing.assert_array_equal(sess.run(y, {x: [4, 5, 6]}), [4, 0, 0])


def test_swish_gradient_tape(ops):
    xs = np.array([-2.0, -0.5, 0.0, 1.5, 4.0], np.float32)
    want_y, want_dx = _swish_and_slope(xs.astype(np.float64))
    x = graft.constant(xs)
    with graft.GradientTape() as tape:
        tape.watch(x)
        y = ops.swish(x)
    np.testing.assert_allclose(y.numpy(), want_y, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want_dx, rtol=1e-6, atol=1e-6)
    # float64 through the op's type attr, and the gradient inside a graft.function.
    xd = graft.constant(xs.astype(np.float64))

    @graft.function
    def grad(v):
        with graft.GradientTape() as t:
            t.watch(v)
            out = graft.reduce_sum(ops.swish(v))
        return t.gradient(out, v)

    dx = grad(xd)
    assert dx.dtype == graft.float64
    np.testing.assert_allclose(dx.numpy(), want_dx, rtol=1e-12)


def test_swish_graft_gradients(ops):
    xs = np.array([-1.0, 0.25, 3.0], np.float32)
    _, want_dx = _swish_and_slope(xs.astype(np.float64))
    with graft.Graph().as_default():
        x = graft.constant(xs)
        y = ops.swish(x)
        (dx,) = graft.gradients(y, x)
        assert dx.op.type == "SwishGrad"
        with v1.Session() as sess:
            np.testing.assert_allclose(sess.run(dx), want_dx, rtol=1e-6, atol=1e-6)
    # SwishGrad called directly: dy * slope; Python values take the tensor input's dtype.
    np.testing.assert_allclose(ops.swish_grad(graft.constant([2.0, 2.0, 2.0]), graft.constant(xs)).numpy(),
                               2.0 * want_dx, rtol=1e-6)
    dx64 = ops.swish_grad([1, 1, 1], graft.constant(xs.astype(np.float64)))
    assert dx64.dtype == graft.float64
    np.testing.assert_allclose(dx64.numpy(), want_dx, rtol=1e-12)


def test_loading_twice(ops):
    again = graft.load_op_library(LIBRARY)
    assert again.OP_NAMES == ops.OP_NAMES
    np.testing.assert_array_equal(again.zero_out([3, 3]).numpy(), [3, 0])
    assert graft.load_library(LIBRARY) is None


def test_bad_path_is_not_found(tmp_path):
    missing = str(tmp_path / "no_such_ops.so")
    with pytest.raises(graft.errors.NotFoundError, match="no_such_ops.so"):
        graft.load_op_library(missing)
    not_a_library = tmp_path / "not_ops.so"
    not_a_library.write_text("not a shared library")
    with pytest.raises(graft.errors.NotFoundError, match="not_ops.so"):
        graft.load_op_library(str(not_a_library))
