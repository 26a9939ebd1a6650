"""Batch normalization for training: FusedBatchNormV3 with is_training (tf.compat.v1.nn.fused_batch_norm),
tf.nn.moments and tf.nn.batch_normalization, and their gradients."""
import numpy as np
import pytest

import graft

v1 = graft.compat.v1


def _data(shape=(4, 3, 3, 2), seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=shape).astype(np.float32) * 2 + 1


def test_fused_batch_norm_training_statistics():
    x = _data()
    scale, offset = np.array([1.5, 0.5], np.float32), np.array([0.1, -0.2], np.float32)
    y, mean, var = v1.nn.fused_batch_norm(x, scale, offset, epsilon=0.001, is_training=True)
    m, v = x.mean(axis=(0, 1, 2)), x.var(axis=(0, 1, 2))
    np.testing.assert_allclose(y.numpy(), (x - m) * scale / np.sqrt(v + 0.001) + offset, rtol=1e-5, atol=1e-5)
    n = x.size // 2
    np.testing.assert_allclose(mean.numpy(), m, rtol=1e-5)
    np.testing.assert_allclose(var.numpy(), v * n / (n - 1), rtol=1e-5)  # the running variance is unbiased


def test_fused_batch_norm_running_average_and_inference():
    x = _data()
    scale, offset = np.ones(2, np.float32), np.zeros(2, np.float32)
    run_mean, run_var = np.array([1, 2], np.float32), np.array([3, 4], np.float32)
    _, mean, var = v1.nn.fused_batch_norm(x, scale, offset, run_mean, run_var, is_training=True,
                                          exponential_avg_factor=0.25)
    n = x.size // 2
    np.testing.assert_allclose(mean.numpy(), 0.75 * run_mean + 0.25 * x.mean(axis=(0, 1, 2)), rtol=1e-5)
    np.testing.assert_allclose(var.numpy(), 0.75 * run_var + 0.25 * x.var(axis=(0, 1, 2)) * n / (n - 1), rtol=1e-5)
    y, _, _ = v1.nn.fused_batch_norm(x, scale, offset, run_mean, run_var, epsilon=0.001, is_training=False)
    np.testing.assert_allclose(y.numpy(), (x - run_mean) / np.sqrt(run_var + 0.001), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="mean is required"):
        v1.nn.fused_batch_norm(x, scale, offset, is_training=False)


def test_fused_and_composite_batch_norm_have_the_same_gradients():
    x = graft.constant(_data())
    scale, offset = graft.constant([1.5, 0.5]), graft.constant([0.1, -0.2])
    w = graft.constant(_data(seed=1))  # weights the outputs so every gradient term matters
    with graft.GradientTape(persistent=True) as tape:
        tape.watch([x, scale, offset])
        fused, _, _ = v1.nn.fused_batch_norm(x, scale, offset, epsilon=0.001)
        loss_fused = graft.reduce_sum(fused * w)
        mean, var = graft.nn.moments(x, [0, 1, 2])
        composite = graft.nn.batch_normalization(x, mean, var, offset, scale, 0.001)
        loss_composite = graft.reduce_sum(composite * w)
    np.testing.assert_allclose(fused.numpy(), composite.numpy(), rtol=1e-4, atol=1e-5)
    for a, b in zip(tape.gradient(loss_fused, [x, scale, offset]), tape.gradient(loss_composite, [x, scale, offset])):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-3, atol=1e-4)


def test_moments_keepdims_and_values():
    x = _data((5, 4))
    mean, var = graft.nn.moments(x, axes=[0])
    np.testing.assert_allclose(mean.numpy(), x.mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(var.numpy(), x.var(axis=0), rtol=1e-4)
    mean, var = graft.nn.moments(x, axes=[1], keepdims=True)
    assert mean.shape.as_list() == [5, 1] and var.shape.as_list() == [5, 1]


def test_training_a_batch_normalized_layer_lowers_the_loss():
    rng = np.random.default_rng(3)
    x = graft.constant(rng.normal(size=(32, 1, 1, 4)).astype(np.float32) * 3 + 2)
    target = graft.constant(rng.normal(size=(32, 1, 1, 4)).astype(np.float32))
    scale, offset = graft.Variable(np.ones(4, np.float32)), graft.Variable(np.zeros(4, np.float32))
    opt = graft.optimizers.SGD(learning_rate=0.1)

    @graft.function
    def step():
        with graft.GradientTape() as tape:
            y, _, _ = v1.nn.fused_batch_norm(x, scale, offset)
            loss = graft.reduce_mean(graft.square(y - target))
        opt.apply_gradients(zip(tape.gradient(loss, [scale, offset]), [scale, offset]))
        return loss

    first = float(step().numpy())
    for _ in range(50):
        last = float(step().numpy())
    assert last < 0.9 * first
