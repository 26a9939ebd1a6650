"""graft.GradientTape: TensorFlow's tf.GradientTape semantics, eagerly and inside graft.function."""
import math

import numpy as np
import pytest

import graft


def test_watch_constant_and_gradient():
    x = graft.constant(3.0)
    with graft.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, x).numpy() == pytest.approx(6.0)


def test_unwatched_constant_has_no_gradient():
    x = graft.constant(3.0)
    with graft.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None


def test_non_persistent_tape_used_twice_raises():
    x = graft.constant(3.0)
    with graft.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(y, x)


def test_persistent_tape_several_gradients():
    x = graft.constant(3.0)
    with graft.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert tape.gradient(z, x).numpy() == pytest.approx(108.0)
    assert tape.gradient(y, x).numpy() == pytest.approx(6.0)


def test_trainable_variables_watched_automatically():
    w = graft.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
    b = graft.Variable([0.5, -0.5], name="b")
    frozen = graft.Variable(2.0, trainable=False)
    x = graft.constant([[1.0, 1.0]])
    with graft.GradientTape() as tape:
        y = graft.matmul(x, w) + b
        loss = graft.reduce_sum(y * y) * frozen
    assert [v.name for v in tape.watched_variables()] == ["w:0", "b:0"]
    gw, gb, gf = tape.gradient(loss, [w, b, frozen])
    yv = np.array([[1.0, 1.0]]) @ np.array([[1.0, 2.0], [3.0, 4.0]]) + np.array([0.5, -0.5])
    np.testing.assert_allclose(gb.numpy(), 2 * 2 * yv[0], rtol=1e-6)
    np.testing.assert_allclose(gw.numpy(), 2 * 2 * np.ones((2, 1)) @ yv, rtol=1e-6)
    assert gf is None  # not trainable, so not watched: TensorFlow gives None too


def test_watch_accessed_variables_false():
    w = graft.Variable(3.0)
    with graft.GradientTape(watch_accessed_variables=False) as tape:
        y = w * w
    assert tape.gradient(y, w) is None
    with graft.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = w * w
    assert tape.gradient(y, w).numpy() == pytest.approx(6.0)


def test_nested_sources_and_unconnected_zero():
    x = graft.constant([1.0, 2.0])
    u = graft.constant(5.0)
    with graft.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = graft.reduce_sum(graft.exp(x))
    g = tape.gradient(y, {"x": x, "u": u})
    np.testing.assert_allclose(g["x"].numpy(), np.exp([1.0, 2.0]), rtol=1e-6)
    assert g["u"] is None
    g = tape.gradient(y, {"x": x, "u": u}, unconnected_gradients=graft.UnconnectedGradients.ZERO)
    assert g["u"].numpy() == 0.0


def test_output_gradients():
    x = graft.constant([1.0, 2.0, 3.0])
    with graft.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, x, output_gradients=graft.constant([1.0, 0.0, 2.0]))
    np.testing.assert_allclose(g.numpy(), [2.0, 0.0, 12.0])


def test_second_derivative_with_nested_tapes():
    x = graft.constant(3.0)
    with graft.GradientTape() as outer:
        outer.watch(x)
        with graft.GradientTape() as inner:
            inner.watch(x)
            y = x ** 3 + graft.sin(x)
        dy = inner.gradient(y, x)
    d2y = outer.gradient(dy, x)
    assert dy.numpy() == pytest.approx(27 + math.cos(3.0), rel=1e-5)
    assert d2y.numpy() == pytest.approx(18 - math.sin(3.0), rel=1e-5)


def test_stop_recording():
    x = graft.constant(2.0)
    with graft.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            z = y * x
        w = y * x
    assert tape.gradient(z, x) is None
    assert tape.gradient(w, x).numpy() == pytest.approx(12.0)


def test_jacobian_and_batch_jacobian():
    x = graft.constant([[1.0, 2.0], [3.0, 4.0]])
    with graft.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    j = tape.jacobian(y, x)
    assert j.shape == (2, 2, 2, 2)
    expect = np.zeros((2, 2, 2, 2))
    for a in range(2):
        for b in range(2):
            expect[a, b, a, b] = 2 * x.numpy()[a, b]
    np.testing.assert_allclose(j.numpy(), expect)
    bj = tape.batch_jacobian(y, x)
    assert bj.shape == (2, 2, 2)
    np.testing.assert_allclose(bj.numpy(), np.stack([np.diag(2 * x.numpy()[i]) for i in range(2)]))


def test_concrete_function_differentiable_under_tape():
    # The seed's ConcreteFunction: "support for differentiability under tf.GradientTape".
    @graft.function
    def f(a):
        return a * a + graft.sin(a)

    cf = f.get_concrete_function(graft.TensorSpec([], graft.float32))
    x = graft.constant(0.5)
    with graft.GradientTape() as tape:
        tape.watch(x)
        y = cf(x)
    assert tape.gradient(y, x).numpy() == pytest.approx(1.0 + math.cos(0.5), rel=1e-6)


def test_variable_captured_by_function_under_tape():
    v = graft.Variable(2.0)

    @graft.function
    def f(a):
        return v * a * a

    x = graft.constant(3.0)
    with graft.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    gx, gv = tape.gradient(y, [x, v])
    assert gx.numpy() == pytest.approx(12.0)
    assert gv.numpy() == pytest.approx(9.0)


def test_tape_inside_function_is_part_of_the_graph():
    w = graft.Variable([1.0, -2.0])

    @graft.function
    def step(x):
        with graft.GradientTape() as tape:
            loss = graft.reduce_sum(graft.square(w * x))
        g = tape.gradient(loss, w)
        w.assign_sub(0.1 * g)
        return loss

    x = graft.constant([1.0, 1.0])
    first = step(x).numpy()
    second = step(x).numpy()
    assert first == pytest.approx(5.0)
    np.testing.assert_allclose(w.numpy(), [1.0 - 0.2 * 1.0 - 0.2 * 0.8, -2.0 + 0.4 + 0.4 * 0.8], rtol=1e-6)
    assert second < first
    assert step.experimental_get_tracing_count() == 1


def test_training_loop_loss_falls():
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(64, 3)).astype(np.float32)
    true_w = np.array([[1.0], [-2.0], [0.5]], np.float32)
    ys = xs @ true_w + 0.3
    w = graft.Variable(np.zeros((3, 1), np.float32))
    b = graft.Variable(0.0)
    losses = []
    for _ in range(50):
        with graft.GradientTape() as tape:
            pred = graft.matmul(graft.constant(xs), w) + b
            loss = graft.reduce_mean(graft.square(pred - ys))
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.1 * gw)
        b.assign_sub(0.1 * gb)
        losses.append(float(loss.numpy()))
    assert losses[-1] < 0.01 * losses[0]


def test_errors():
    with pytest.raises(ValueError, match="active tape"):
        graft.GradientTape().watch(graft.constant(1.0))
    with graft.GradientTape() as tape:
        with pytest.raises(ValueError, match="not tf.Tensor"):
            tape.watch("text")
    x = graft.constant(2.0)
    with graft.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(graft.errors.InvalidArgumentError, match="output gradient"):
        tape.gradient(y, x, output_gradients=graft.constant(1, dtype=graft.int32))


# ---- py_function: differentiable once ---------------------------------------------------------

def _cube(a):
    return a * a * a


def test_py_function_gradient_eagerly():
    x = graft.constant([1.0, 2.0])
    with graft.GradientTape() as tape:
        tape.watch(x)
        y = graft.py_function(_cube, [x], graft.float32)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [3.0, 12.0])


def test_py_function_gradient_inside_function():
    @graft.function
    def f(x):
        with graft.GradientTape() as tape:
            tape.watch(x)
            y = graft.py_function(_cube, [x], graft.float32)
        return tape.gradient(y, x)

    np.testing.assert_allclose(f(graft.constant(3.0)).numpy(), 27.0)
    np.testing.assert_allclose(f(graft.constant(-1.0)).numpy(), 3.0)


def test_py_function_gradient_several_inputs_and_outputs(default_graph=None):
    g = graft.Graph()
    with g.as_default():
        x = graft.compat.v1.placeholder(graft.float32)
        w = graft.compat.v1.placeholder(graft.float32)
        n = graft.compat.v1.placeholder(graft.int32)

        def f(a, b, k):
            # Python control flow on the values, as in the log_huber example.
            return a * b * graft.cast(k, graft.float32), a + b if k > 0 else a - b

        p, q = graft.py_function(f, [x, w, n], [graft.float32, graft.float32])
        dx, dw, dn = graft.gradients(p + 10.0 * q, [x, w, n])
        assert dn is None  # no gradient through an int32 input
        dq_dw = graft.gradients(q, w)[0]
        with graft.compat.v1.Session() as sess:
            feed = {x: 2.0, w: 5.0, n: 3}
            np.testing.assert_allclose(sess.run([dx, dw], feed), [5.0 * 3 + 10.0, 2.0 * 3 + 10.0])
            np.testing.assert_allclose(sess.run(dq_dw, {x: 2.0, w: 5.0, n: -1}), -1.0)


def test_py_function_host_computation_has_zero_gradient():
    # Through NumPy, the function's result is not made by graft ops: nothing to differentiate.
    x = graft.constant(2.0)
    with graft.GradientTape() as tape:
        tape.watch(x)
        y = graft.py_function(lambda a: np.float32(a.numpy() ** 2), [x], graft.float32)
    assert tape.gradient(y, x).numpy() == 0.0


def test_numpy_function_is_not_differentiable():
    g = graft.Graph()
    with g.as_default():
        x = graft.compat.v1.placeholder(graft.float32)
        y = graft.numpy_function(lambda a: a * 2, [x], graft.float32)
        assert graft.gradients(y, x) == [None]


def test_py_function_second_derivative_raises():
    x = graft.constant(2.0)
    with graft.GradientTape() as outer:
        outer.watch(x)
        with graft.GradientTape() as inner:
            inner.watch(x)
            y = graft.py_function(_cube, [x], graft.float32)
        dy = inner.gradient(y, x)
    assert dy.numpy() == pytest.approx(12.0)
    with pytest.raises(Exception, match="GraftHostFunctionGrad"):
        outer.gradient(dy, x)


def test_py_function_registration_released_with_the_tape():
    import sys
    pf = sys.modules["graft.py_function"]
    before = len(pf._registry)
    x = graft.constant(2.0)
    with graft.GradientTape() as tape:
        tape.watch(x)
        graft.py_function(_cube, [x], graft.float32)
    assert len(pf._registry) == before + 1
    del tape
    import gc
    gc.collect()
    assert len(pf._registry) == before
    graft.py_function(_cube, [x], graft.float32)  # no tape: released at once
    assert len(pf._registry) == before


# ---- custom_gradient ----------------------------------------------------------------------------

@graft.custom_gradient
def _log1pexp(x):
    # TensorFlow's example: the gradient written by hand is stable where the ops' one is not.
    e = graft.exp(x)

    def grad(upstream):
        return upstream * (1 - 1 / (1 + e))
    return graft.math.log(1 + e), grad


@graft.custom_gradient
def _clip_gradient(x, y):
    def grad(dz):
        return graft.clip_by_value(dz, -0.5, 0.5), 2.0 * dz
    return x * y, grad


def test_custom_gradient_eagerly_on_a_tape():
    x = graft.constant(100.0)
    with graft.GradientTape() as tape:
        tape.watch(x)
        y = _log1pexp(x)
    assert np.isinf(y.numpy())  # log(1 + e^100) overflows float32, as in TensorFlow
    g = tape.gradient(y, x)
    assert g.numpy() == pytest.approx(1.0)  # the ops' own gradient would be nan (inf / inf)


def test_custom_gradient_two_inputs_and_outputs_scaled():
    x, y = graft.constant(3.0), graft.constant(4.0)
    with graft.GradientTape() as tape:
        tape.watch([x, y])
        z = _clip_gradient(x, y) * 10.0
    dx, dy = tape.gradient(z, [x, y])
    assert dx.numpy() == pytest.approx(0.5)   # clipped from 10
    assert dy.numpy() == pytest.approx(20.0)  # 2 * 10, not x * 10


def test_custom_gradient_in_graph_mode_and_in_a_function():
    g = graft.Graph()
    with g.as_default():
        x = graft.compat.v1.placeholder(graft.float32)
        dx = graft.gradients(_log1pexp(x), x)[0]
        with graft.compat.v1.Session() as sess:
            assert sess.run(dx, {x: 100.0}) == pytest.approx(1.0)
            assert sess.run(dx, {x: 0.0}) == pytest.approx(0.5)

    @graft.function
    def f(x):
        with graft.GradientTape() as tape:
            tape.watch(x)
            y = _log1pexp(x)
        return tape.gradient(y, x)

    assert f(graft.constant(100.0)).numpy() == pytest.approx(1.0)


def test_custom_gradient_without_a_tape_is_the_plain_function():
    assert _log1pexp(graft.constant(0.0)).numpy() == pytest.approx(np.log(2.0))


def test_custom_gradient_bad_gradient_count():
    @graft.custom_gradient
    def f(x, y):
        return x + y, lambda dz: dz  # one gradient for two inputs

    x, y = graft.constant(1.0), graft.constant(2.0)
    with graft.GradientTape() as tape:
        tape.watch([x, y])
        z = f(x, y)
    with pytest.raises(Exception, match="returned 1 gradients for 2 inputs"):
        tape.gradient(z, [x, y])


def _scaled_by(v):
    @graft.custom_gradient
    def f(x):
        def grad(dy, variables=None):
            assert [w is v for w in variables] == [True]
            return dy * 10.0, [dy * 100.0]
        return x * v, grad
    return f


def test_custom_gradient_with_variables_eagerly_in_a_function_and_in_a_graph():
    v = graft.Variable(2.0)
    f = _scaled_by(v)
    x = graft.constant(3.0)
    with graft.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert y.numpy() == pytest.approx(6.0)
    dx, dv = tape.gradient(y, [x, v])
    assert (dx.numpy(), dv.numpy()) == (pytest.approx(10.0), pytest.approx(100.0))

    @graft.function
    def traced(x):
        with graft.GradientTape() as t:
            t.watch(x)
            y = f(x)
        return t.gradient(y, [x, v])

    assert [g.numpy() for g in traced(x)] == [pytest.approx(10.0), pytest.approx(100.0)]

    g = graft.Graph()
    with g.as_default():
        w = graft.Variable(2.0, name="w")
        xp = graft.compat.v1.placeholder(graft.float32)
        dxg, dwg = graft.gradients(_scaled_by(w)(xp), [xp, w])
        with graft.compat.v1.Session() as sess:
            sess.run(graft.compat.v1.global_variables_initializer())
            assert sess.run([dxg, dwg], {xp: 3.0}) == [pytest.approx(10.0), pytest.approx(100.0)]


def test_custom_gradient_reading_variables_needs_a_variables_argument():
    v = graft.Variable(2.0)

    @graft.custom_gradient
    def f(x):
        return x * v, lambda dy: dy

    with graft.GradientTape() as tape:
        x = graft.constant(1.0)
        tape.watch(x)
        with pytest.raises(TypeError, match="keyword argument 'variables'"):
            f(x)


def test_non_trainable_variables_are_not_watched_eagerly_or_in_functions():
    w = graft.Variable(2.0)
    n = graft.Variable(3.0, trainable=False)

    @graft.function
    def f():
        return w * n

    for compute in (lambda: w * n, f):
        with graft.GradientTape() as tape:
            y = compute()
        assert [v is w for v in tape.watched_variables()] == [True]
        dw, dn = tape.gradient(y, [w, n])
        assert dw.numpy() == pytest.approx(3.0)
        assert dn is None  # TensorFlow's answer: n is not watched
    with graft.GradientTape() as tape:
        tape.watch(n)
        y = f()
    assert tape.gradient(y, n).numpy() == pytest.approx(2.0)
