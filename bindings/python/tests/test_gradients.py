"""graft.gradients (tf.gradients) in graph mode and inside graft.function, and gradient functions
registered from Python (RegisterGradient, gradient_override_map, NoGradient)."""
import numpy as np
import pytest

import graft

v1 = graft.compat.v1


def _run(fetches, feed_dict=None, graph=None):
    with v1.Session(graph=graph) as sess:
        return sess.run(fetches, feed_dict=feed_dict)


def test_graph_mode_single_and_lists():
    with graft.Graph().as_default() as g:
        x = graft.constant([1.0, 2.0, 3.0])
        y = graft.reduce_sum(x * x)
        (dx,) = graft.gradients(y, x)
        assert dx.graph is g
        assert dx.name.startswith("gradients/")
        np.testing.assert_allclose(_run(dx), [2.0, 4.0, 6.0])
        a = graft.constant(2.0)
        b = graft.constant(5.0)
        z1 = a * b
        z2 = a + b
        da, db = graft.gradients([z1, z2], [a, b])
        assert _run([da, db]) == [6.0, 3.0]


def test_placeholder_feed_grad_ys_and_unconnected():
    with graft.Graph().as_default():
        x = v1.placeholder(graft.float32, [2])
        w = graft.constant(3.0)
        y = x * w
        dx, dw = graft.gradients(y, [x, w], grad_ys=graft.constant([1.0, 10.0]))
        out = _run([dx, dw], {x: np.array([1.0, 2.0], np.float32)})
        np.testing.assert_allclose(out[0], [3.0, 30.0])
        assert out[1] == pytest.approx(21.0)
        unrelated = graft.constant([7.0, 8.0])
        assert graft.gradients(y, unrelated) == [None]
        (zero,) = graft.gradients(y, unrelated, unconnected_gradients=graft.UnconnectedGradients.ZERO)
        np.testing.assert_allclose(_run(zero, {x: np.zeros(2, np.float32)}), [0.0, 0.0])
        # Integer paths stop.
        i = graft.constant(3)
        assert graft.gradients(graft.cast(i, graft.float32) * 2.0, i) == [None]


def test_stop_gradients_and_name():
    with graft.Graph().as_default():
        a = graft.constant(0.0)
        b = 2 * a
        (da,) = graft.gradients(a + b, a, stop_gradients=[b], name="my_grads")
        assert _run(da) == 1.0
        assert da.name.startswith("my_grads")
        (da,) = graft.gradients(a + b, a)
        assert _run(da) == 3.0


def test_variables_in_graph_mode():
    with graft.Graph().as_default():
        w = graft.Variable([[1.0], [2.0]], name="w")
        x = graft.constant([[3.0, 4.0]])
        loss = graft.reduce_sum(graft.matmul(x, w)) + graft.reduce_sum(w * w)
        (dw,) = graft.gradients(loss, w)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            np.testing.assert_allclose(sess.run(dw), [[3.0 + 2.0], [4.0 + 4.0]])


def test_variable_as_y_and_v1_signature():
    with graft.Graph().as_default():
        w = graft.Variable(3.0, name="w")
        (dw,) = graft.gradients(w, w)
        (dw_v1,) = v1.gradients(w * w, [w], None, "v1_grads", True)
        assert dw_v1.name.startswith("v1_grads")
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            assert sess.run([dw, dw_v1]) == [1.0, 6.0]


def test_eager_raises():
    x = graft.constant(1.0)
    with pytest.raises(RuntimeError, match="GradientTape"):
        graft.gradients(x * x, x)


def test_inside_function():
    @graft.function
    def f(x):
        y = graft.reduce_sum(graft.sin(x) * x)
        (dx,) = graft.gradients(y, x)
        return y, dx

    x = np.array([0.5, 1.0, 2.0], np.float32)
    y, dx = f(graft.constant(x))
    np.testing.assert_allclose(y.numpy(), np.sum(np.sin(x) * x), rtol=1e-6)
    np.testing.assert_allclose(dx.numpy(), np.cos(x) * x + np.sin(x), rtol=1e-6)


def test_inside_function_variables():
    v = graft.Variable([1.0, -2.0])

    @graft.function
    def grads_captured():
        loss = graft.reduce_sum(v * v * 3.0)
        return graft.gradients(loss, v)[0]

    @graft.function
    def grads_arg(var):
        return graft.gradients(graft.reduce_sum(var * 5.0), var)[0]

    np.testing.assert_allclose(grads_captured().numpy(), [6.0, -12.0])
    np.testing.assert_allclose(grads_arg(v).numpy(), [5.0, 5.0])


def test_inside_function_captured_eager_tensor():
    c = graft.constant([1.0, 2.0])

    @graft.function
    def f(x):
        return graft.gradients(graft.reduce_sum(c * c * x), [c, x])

    dc, dx = f(graft.constant(3.0))
    np.testing.assert_allclose(dc.numpy(), [6.0, 12.0])
    assert float(dx) == 5.0


def test_no_gradient_function_error_names_op():
    with graft.Graph().as_default() as g:
        x = graft.constant(3.0)
        with g.gradient_override_map({"Square": "TestNeverRegistered"}):
            y = graft.square(x, name="sq")
        with pytest.raises(LookupError, match="sq"):
            graft.gradients(y, x)


# ---- Gradient functions from Python ---------------------------------------------------------------

def test_register_gradient_override_changes_the_gradient():
    @graft.RegisterGradient("TestDoubledSquare")
    def _grad(op, grad):
        return grad * 4.0 * op.inputs[0]

    with graft.Graph().as_default() as g:
        c = graft.constant(5.0)
        s_1 = graft.square(c)
        with g.gradient_override_map({"Square": "TestDoubledSquare"}):
            s_2 = graft.square(c)
        (d1,) = graft.gradients(s_1, c)
        (d2,) = graft.gradients(s_2, c)
        assert _run([d1, d2]) == [10.0, 20.0]


def test_register_gradient_for_new_op_type_multiple_inputs_and_none():
    calls = []

    @graft.RegisterGradient("TestSubOverride")
    def _sub_grad(op, grad):
        calls.append(op.type)
        return [grad * 10.0, None]

    with graft.Graph().as_default() as g:
        x = graft.constant(5.0)
        y = graft.constant(3.0)
        with g.gradient_override_map({"Sub": "TestSubOverride"}):
            z = graft.subtract(x, y)
        dx, dy = graft.gradients(z, [x, y])
        assert dy is None
        assert _run(dx) == 10.0
    assert calls == ["Sub"]


def test_register_gradient_inside_function():
    @graft.RegisterGradient("TestTracedMul")
    def _grad(op, grad):
        return [grad * 100.0, grad * 1000.0]

    @graft.function
    def f(a, b):
        with graft.get_default_graph().gradient_override_map({"Mul": "TestTracedMul"}):
            z = a * b
        return graft.gradients(z, [a, b])

    da, db = f(graft.constant(2.0), graft.constant(3.0))
    assert float(da) == 100.0 and float(db) == 1000.0


def test_python_gradient_errors_propagate():
    class Boom(Exception):
        pass

    @graft.RegisterGradient("TestBoom")
    def _grad(op, grad):
        raise Boom("the gradient exploded")

    @graft.RegisterGradient("TestWrongCount")
    def _grad2(op, grad):
        return [grad, grad, grad]

    with graft.Graph().as_default() as g:
        x = graft.constant(1.0)
        with g.gradient_override_map({"Neg": "TestBoom", "Exp": "TestWrongCount"}):
            y = graft.negative(x)
            z = graft.exp(x)
        n_ops = len(g.get_operations())
        with pytest.raises(Boom, match="the gradient exploded"):
            graft.gradients(y, x)
        with pytest.raises(graft.errors.InvalidArgumentError, match="returned 3 gradients"):
            graft.gradients(z, x)
        assert len(g.get_operations()) == n_ops  # the graph is left as it was


def test_registering_twice_and_builtin_is_key_error():
    with pytest.raises(KeyError):
        graft.RegisterGradient("Sub")(lambda op, grad: (grad, grad))
    with pytest.raises(KeyError):
        graft.no_gradient("MatMul")

    @graft.RegisterGradient("TestOnce")
    def _g(op, grad):
        return grad

    with pytest.raises(KeyError):
        graft.RegisterGradient("TestOnce")(_g)


def test_no_gradient_stops_the_gradient():
    graft.NotDifferentiable("TestStop")
    with graft.Graph().as_default() as g:
        x = graft.constant(2.0)
        with g.gradient_override_map({"Square": "TestStop"}):
            y = graft.square(x)
        assert graft.gradients(y + x, x)[0] is not None
        assert _run(graft.gradients(y + x, x)[0]) == 1.0
        assert graft.gradients(y, x) == [None]


def test_gradient_function_outlives_the_decorated_name():
    import gc

    def make():
        @graft.RegisterGradient("TestKeptAlive")
        def _grad(op, grad):
            return grad * 7.0
    make()
    gc.collect()
    with graft.Graph().as_default() as g:
        x = graft.constant(1.0)
        with g.gradient_override_map({"Identity": "TestKeptAlive"}):
            y = graft.identity(x)
        assert _run(graft.gradients(y, x)[0]) == 7.0
