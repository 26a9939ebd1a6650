"""The sorted segment reductions (graft.math.segment_*), graft.scatter_nd and
graft.tensor_scatter_nd_*, with their gradients. Expected values are TensorFlow 2.21's."""
import numpy as np
import pytest

import graft


def test_segment_reductions_and_gradient():
    data = graft.constant([[1., 2.], [3., 4.], [5., 6.]])
    with graft.GradientTape() as tape:
        tape.watch(data)
        mean = graft.math.segment_mean(data, [0, 0, 2])
        loss = graft.reduce_sum(mean * [[1., 2.], [3., 4.], [5., 6.]])
    np.testing.assert_allclose(mean.numpy(), [[2, 3], [0, 0], [5, 6]])
    np.testing.assert_allclose(tape.gradient(loss, data).numpy(), [[0.5, 1], [0.5, 1], [5, 6]])
    np.testing.assert_allclose(graft.math.segment_sum(data, [0, 1, 1]).numpy(), [[1, 2], [8, 10]])
    np.testing.assert_allclose(graft.math.segment_prod(data, [0, 1, 1]).numpy(), [[1, 2], [15, 24]])
    np.testing.assert_allclose(graft.math.segment_max(data, [1, 1, 1]).numpy(), [[0, 0], [5, 6]])
    np.testing.assert_allclose(graft.math.segment_min(data, [0, 0, 1]).numpy(), [[1, 2], [5, 6]])
    with pytest.raises(graft.errors.InvalidArgumentError, match="segment ids are not increasing"):
        graft.math.segment_sum(data, [1, 0, 1])


def test_scatters_and_gradients():
    np.testing.assert_allclose(graft.scatter_nd([[0], [2], [0]], [1., 2., 3.], [4]).numpy(), [4, 0, 2, 0])
    t = graft.constant([1., 2., 3., 4.])
    u = graft.constant([10., 20.])
    with graft.GradientTape(persistent=True) as tape:
        tape.watch([t, u])
        r = graft.tensor_scatter_nd_update(t, [[1], [3]], u)
        loss = graft.reduce_sum(r * [1., 2., 3., 4.])
    np.testing.assert_allclose(r.numpy(), [1, 10, 3, 20])
    np.testing.assert_allclose(tape.gradient(loss, t).numpy(), [1, 0, 3, 0])
    np.testing.assert_allclose(tape.gradient(loss, u).numpy(), [2, 4])
    np.testing.assert_allclose(graft.tensor_scatter_nd_add(t, [[0]], [5.]).numpy(), [6, 2, 3, 4])
    np.testing.assert_allclose(graft.tensor_scatter_nd_sub(t, [[0]], [5.]).numpy(), [-4, 2, 3, 4])
    np.testing.assert_allclose(graft.tensor_scatter_nd_max(t, [[0], [1]], [5., 0.]).numpy(), [5, 2, 3, 4])
    np.testing.assert_allclose(graft.tensor_scatter_nd_min(t, [[0], [1]], [5., 0.]).numpy(), [1, 0, 3, 4])
    with pytest.raises(graft.errors.InvalidArgumentError, match=r"indices\[1\] = \[4\] does not index into shape \[4\]"):
        graft.tensor_scatter_nd_update(t, [[1], [4]], u)
