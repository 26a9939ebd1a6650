"""graft.optimizers (Keras style) and graft.compat.v1.train (TensorFlow 1 style): updates checked
against hand-computed NumPy updates, eagerly, inside graft.function and in graph mode."""
import numpy as np
import pytest

import graft

v1 = graft.compat.v1

W0 = np.array([1.0, -2.0, 3.0], np.float32)
GRADS = [np.array([0.5, -1.0, 2.0], np.float32), np.array([-0.25, 0.5, 1.0], np.float32),
         np.array([1.0, 1.0, -3.0], np.float32)]


# ---- hand-computed references ---------------------------------------------------------------------

def ref_sgd(lr, momentum=0.0, nesterov=False):
    w, m, out = W0.astype(np.float64), np.zeros(3), []
    for g in GRADS:
        if momentum == 0:
            w = w - lr * g
        else:
            m = momentum * m - lr * g
            w = w + (momentum * m - lr * g if nesterov else m)
        out.append(w.copy())
    return out


def ref_adam(lr, b1, b2, eps):
    # TensorFlow's (Keras's and TF1's) Adam: bias correction folded into lr_t, epsilon added to sqrt(v).
    w, m, v, out = W0.astype(np.float64), np.zeros(3), np.zeros(3), []
    for t, g in enumerate(GRADS, start=1):
        lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        w = w - lr_t * m / (np.sqrt(v) + eps)
        out.append(w.copy())
    return out


def ref_amsgrad(lr, b1, b2, eps):
    # Adam dividing by the running maximum of v.
    w, m, v, vhat, out = W0.astype(np.float64), np.zeros(3), np.zeros(3), np.zeros(3), []
    for t, g in enumerate(GRADS, start=1):
        lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vhat = np.maximum(vhat, v)
        w = w - lr_t * m / (np.sqrt(vhat) + eps)
        out.append(w.copy())
    return out


def ref_rmsprop(lr, rho, momentum, eps, ms0=0.0, centered=False):
    w, ms, mg, mom, out = W0.astype(np.float64), np.full(3, ms0), np.zeros(3), np.zeros(3), []
    for g in GRADS:
        ms = rho * ms + (1 - rho) * g * g
        mg = rho * mg + (1 - rho) * g
        mom = momentum * mom + lr * g / np.sqrt(ms - (mg * mg if centered else 0) + eps)
        w = w - mom
        out.append(w.copy())
    return out


def ref_adagrad(lr, init, eps):
    w, acc, out = W0.astype(np.float64), np.full(3, init), []
    for g in GRADS:
        acc = acc + g * g
        w = w - lr * g / (np.sqrt(acc) + eps)
        out.append(w.copy())
    return out


def ref_momentum_v1(lr, momentum, nesterov=False):
    w, acc, out = W0.astype(np.float64), np.zeros(3), []
    for g in GRADS:
        acc = momentum * acc + g
        w = w - (lr * g + lr * momentum * acc if nesterov else lr * acc)
        out.append(w.copy())
    return out


KERAS_CASES = [
    (lambda: graft.optimizers.SGD(0.1), ref_sgd(0.1), ()),
    (lambda: graft.optimizers.SGD(0.1, momentum=0.9), ref_sgd(0.1, 0.9), ("momentum",)),
    (lambda: graft.optimizers.SGD(0.1, momentum=0.9, nesterov=True), ref_sgd(0.1, 0.9, True), ("momentum",)),
    (lambda: graft.optimizers.Adam(0.01), ref_adam(0.01, 0.9, 0.999, 1e-7), ("m", "v")),
    (lambda: graft.optimizers.Adam(0.1, beta_1=0.5, beta_2=0.75, epsilon=0.01), ref_adam(0.1, 0.5, 0.75, 0.01),
     ("m", "v")),
    (lambda: graft.optimizers.RMSprop(0.01), ref_rmsprop(0.01, 0.9, 0.0, 1e-7), ("rms", "momentum")),
    (lambda: graft.optimizers.RMSprop(0.01, rho=0.8, momentum=0.5, epsilon=1e-3),
     ref_rmsprop(0.01, 0.8, 0.5, 1e-3), ("rms", "momentum")),
    (lambda: graft.optimizers.Adagrad(0.1), ref_adagrad(0.1, 0.1, 1e-7), ("accumulator",)),
    (lambda: graft.optimizers.Adam(0.1, beta_1=0.5, beta_2=0.75, epsilon=0.01, amsgrad=True),
     ref_amsgrad(0.1, 0.5, 0.75, 0.01), ("m", "v", "vhat")),
    (lambda: graft.optimizers.RMSprop(0.01, rho=0.8, momentum=0.5, epsilon=1e-3, centered=True),
     ref_rmsprop(0.01, 0.8, 0.5, 1e-3, centered=True), ("rms", "momentum", "average_gradient")),
]


@pytest.mark.parametrize("make,expected,slots", KERAS_CASES)
def test_keras_optimizers_eager(make, expected, slots):
    opt = make()
    w = graft.Variable(W0)
    for step, g in enumerate(GRADS):
        it = opt.apply_gradients([(graft.constant(g), w)])
        assert int(it) == step + 1
        np.testing.assert_allclose(w.numpy(), expected[step], rtol=1e-5, atol=1e-6)
    assert int(opt.iterations) == len(GRADS)
    assert sorted(opt.get_slot_names()) == sorted(slots)
    for s in slots:
        assert opt.get_slot(w, s).shape == w.shape


@pytest.mark.parametrize("make,expected,slots", KERAS_CASES)
def test_keras_optimizers_in_function(make, expected, slots):
    opt = make()
    w = graft.Variable(W0)

    @graft.function
    def step(g):
        opt.apply_gradients([(g, w)])

    for i, g in enumerate(GRADS):
        step(graft.constant(g))
        np.testing.assert_allclose(w.numpy(), expected[i], rtol=1e-5, atol=1e-6)
    assert int(opt.iterations) == len(GRADS)


def test_keras_optimizer_with_a_variable_argument_and_none_gradients():
    opt = graft.optimizers.SGD(0.5)
    a = graft.Variable([1.0, 2.0])
    b = graft.Variable([5.0])

    @graft.function
    def step(var, g):
        opt.apply_gradients([(g, var), (None, b)])

    step(a, graft.constant([1.0, 1.0]))
    np.testing.assert_allclose(a.numpy(), [0.5, 1.5])
    np.testing.assert_allclose(b.numpy(), [5.0])
    with pytest.raises(ValueError, match="No gradients"):
        opt.apply_gradients([(None, b)])


def test_keras_optimizer_in_graph_mode():
    with graft.Graph().as_default():
        w = graft.Variable(W0, name="w")
        g = v1.placeholder(graft.float32, [3])
        opt = graft.optimizers.Adam(0.01)
        train = opt.apply_gradients([(g, w)])
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            expected = ref_adam(0.01, 0.9, 0.999, 1e-7)
            for i, grad in enumerate(GRADS):
                sess.run(train, {g: grad})
                np.testing.assert_allclose(sess.run(w.read_value()), expected[i], rtol=1e-5, atol=1e-6)
            assert sess.run(opt.iterations.read_value()) == 3


def test_minimize_in_function_and_graph_mode():
    # y = (w - 3)^2 has its minimum at w = 3.
    w = graft.Variable(0.0)
    opt = graft.optimizers.SGD(0.1)

    @graft.function
    def step():
        opt.minimize(lambda: (w - 3.0) * (w - 3.0), [w])

    for _ in range(50):
        step()
    assert float(w.numpy()) == pytest.approx(3.0, abs=1e-3)

    with graft.Graph().as_default():
        wg = graft.Variable(0.0)
        train = graft.optimizers.SGD(0.1).minimize((wg - 3.0) * (wg - 3.0), [wg])
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for _ in range(50):
                sess.run(train)
            assert sess.run(wg.read_value()) == pytest.approx(3.0, abs=1e-3)


def test_minimize_eagerly_with_the_tape():
    w = graft.Variable(0.0)
    opt = graft.optimizers.SGD(0.1)
    opt.minimize(lambda: (w - 3.0) * (w - 3.0), [w])
    assert float(w.numpy()) == pytest.approx(0.6)  # w - 0.1 * 2 (w - 3)
    # Eagerly a loss tensor cannot be differentiated after the fact (TensorFlow's rule).
    with pytest.raises(ValueError, match="callable"):
        opt.minimize((w - 3.0) * (w - 3.0), [w])
    # With the tape that computed it, it can.
    with graft.GradientTape() as tape:
        loss = (w - 3.0) * (w - 3.0)
    opt.minimize(loss, [w], tape=tape)
    assert float(w.numpy()) == pytest.approx(0.6 + 0.1 * 2 * 2.4)


def test_minimize_uses_graft_gradient_tape_when_present(monkeypatch):
    # The tape's API (TensorFlow's): `with GradientTape() as tape: ...; tape.gradient(target,
    # sources)`. A stand-in that differentiates symbolically checks the wiring.
    used = []

    class FakeTape:
        def __enter__(self):
            used.append("enter")
            return self

        def __exit__(self, *exc):
            return False

        def gradient(self, target, sources):
            used.append("gradient")
            return graft.gradients(target, sources)

    monkeypatch.setattr(graft, "GradientTape", FakeTape, raising=False)
    w = graft.Variable(1.0)
    opt = graft.optimizers.SGD(0.25)

    @graft.function
    def step():
        opt.minimize(lambda: w * w, lambda: [w])

    step()
    # The first trace makes the optimizer's variables, so the function is traced once more
    # (to check that it makes them only once, as tf.function does): the tape is used twice.
    assert used == ["enter", "gradient"] * 2
    assert float(w.numpy()) == pytest.approx(0.5)


def test_bad_hyperparameters():
    with pytest.raises(ValueError):
        graft.optimizers.SGD(0.1, momentum=1.5)
    with pytest.raises(TypeError):
        graft.optimizers.Adam(0.1, not_an_option=1)


# ---- TensorFlow 1 ---------------------------------------------------------------------------------

V1_CASES = [
    (lambda: v1.train.GradientDescentOptimizer(0.1), ref_sgd(0.1)),
    (lambda: v1.train.MomentumOptimizer(0.1, 0.9), ref_momentum_v1(0.1, 0.9)),
    (lambda: v1.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True), ref_momentum_v1(0.1, 0.9, True)),
    (lambda: v1.train.AdamOptimizer(0.01), ref_adam(0.01, 0.9, 0.999, 1e-8)),
    (lambda: v1.train.AdamOptimizer(0.1, 0.5, 0.75, 0.01), ref_adam(0.1, 0.5, 0.75, 0.01)),
    (lambda: v1.train.AdagradOptimizer(0.1), ref_adagrad(0.1, 0.1, 0.0)),
    (lambda: v1.train.RMSPropOptimizer(0.01, momentum=0.5), ref_rmsprop(0.01, 0.9, 0.5, 1e-10, ms0=1.0)),
    (lambda: v1.train.RMSPropOptimizer(0.01, momentum=0.5, centered=True),
     ref_rmsprop(0.01, 0.9, 0.5, 1e-10, ms0=1.0, centered=True)),
]


@pytest.mark.parametrize("make,expected", V1_CASES)
def test_v1_optimizers_minimize(make, expected):
    with graft.Graph().as_default():
        w = graft.Variable(W0, name="w")
        g = v1.placeholder(graft.float32, [3])
        # d(loss)/dw = g: loss = sum(w * g) with g fed.
        loss = graft.reduce_sum(w * g)
        opt = make()
        step = v1.train.get_or_create_global_step()
        train = opt.minimize(loss, global_step=step)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for i, grad in enumerate(GRADS):
                sess.run(train, {g: grad})
                np.testing.assert_allclose(sess.run(w.read_value()), expected[i], rtol=1e-5, atol=1e-6)
            assert sess.run(step.read_value()) == len(GRADS)


def test_v1_adam_names_and_beta_powers():
    with graft.Graph().as_default():
        w = graft.Variable(W0, name="w")
        loss = graft.reduce_sum(w * w)
        opt = v1.train.AdamOptimizer(0.1)
        train = opt.minimize(loss)
        assert opt.get_slot(w, "m").name == "w/Adam:0"
        assert opt.get_slot(w, "v").name == "w/Adam_1:0"
        b1p, b2p = sorted(opt.get_beta_accumulators(), key=lambda v: v.name)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(train)
            sess.run(train)
            assert sess.run(b1p.read_value()) == pytest.approx(0.9 ** 3)
            assert sess.run(b2p.read_value()) == pytest.approx(0.999 ** 3)


def test_v1_compute_and_apply_gradients_and_errors():
    with graft.Graph().as_default():
        a = graft.Variable(2.0, name="a")
        b = graft.Variable(5.0, name="b")
        loss = a * a
        opt = v1.train.GradientDescentOptimizer(0.25)
        gv = opt.compute_gradients(loss)
        assert [v for _, v in gv] == [a, b]
        assert gv[1][0] is None
        train = opt.apply_gradients(gv)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(train)
            assert sess.run(a.read_value()) == 1.0
            assert sess.run(b.read_value()) == 5.0
        with pytest.raises(ValueError, match="No gradients"):
            opt.minimize(graft.constant(1.0) * 2.0, var_list=[b])
    with pytest.raises(ValueError):
        v1.train.GradientDescentOptimizer(0.1).minimize(graft.constant(1.0))
