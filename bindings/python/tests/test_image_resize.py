"""graft.image.resize (bilinear and nearest, half-pixel centers as tf.image.resize) and
graft.compat.v1.image.resize_*, with their gradients, eagerly and in graft.function. Expected
values are TensorFlow 2.21's."""
import numpy as np
import pytest

import graft

IMAGE = np.arange(12, dtype=np.float32).reshape(2, 3, 2) ** 1.5
WEIGHTS = np.arange(24, dtype=np.float32).reshape(3, 4, 2)
BILINEAR = [[[0, 1], [1.767767, 3.6225953], [4.767767, 7.4402227], [8, 11.18034]],
            [[7.3484693, 9.760129], [10.710628, 13.721346], [15.384222, 18.99815], [19.811388, 23.831606]],
            [[14.6969385, 18.520258], [19.653488, 23.820097], [26.000677, 30.556076], [31.622776, 36.482872]]]
BILINEAR_GRAD = [[[6.625, 8.6875], [10.625, 12.5], [16.75, 18.8125]],
                 [[28.625, 30.687498], [30.624998, 32.5], [38.75, 40.8125]]]
NEAREST_GRAD = [[[0, 1], [6, 8], [6, 7]], [[24, 26], [60, 64], [36, 38]]]


@pytest.mark.parametrize("traced", [False, True])
def test_image_resize_and_gradients(traced):
    def f(x):
        with graft.GradientTape(persistent=True) as tape:
            tape.watch(x)
            b = graft.image.resize(x, [3, 4], method="bilinear")
            n = graft.image.resize(x, [3, 4], method=graft.image.ResizeMethod.NEAREST_NEIGHBOR)
            lb = graft.reduce_sum(b * WEIGHTS)
            ln = graft.reduce_sum(n * WEIGHTS)
        return b, n, tape.gradient(lb, x), tape.gradient(ln, x)

    if traced:
        f = graft.function(f)
    b, n, gb, gn = f(graft.constant(IMAGE))
    assert b.shape == (3, 4, 2) and b.dtype == graft.float32
    np.testing.assert_allclose(b.numpy(), BILINEAR, rtol=1e-6)
    np.testing.assert_array_equal(n.numpy(), IMAGE[[0, 1, 1], :][:, [0, 1, 1, 2]])
    np.testing.assert_allclose(gb.numpy(), BILINEAR_GRAD, rtol=1e-6)
    np.testing.assert_allclose(gn.numpy(), NEAREST_GRAD)


def test_image_resize_types_and_errors():
    u8 = np.array([[[[1], [200]]]], np.uint8)
    assert graft.image.resize(u8, [2, 3], method="nearest").dtype == graft.uint8
    assert graft.image.resize(u8, [2, 3]).dtype == graft.float32
    with pytest.raises(ValueError, match="bicubic"):
        graft.image.resize(u8, [2, 3], method="bicubic")
    with pytest.raises(graft.errors.InvalidArgumentError, match="output dimensions must be positive"):
        graft.image.resize(u8, graft.constant([0, 3]))
    old = graft.compat.v1.image.resize_bilinear(u8, [2, 3], align_corners=True)
    np.testing.assert_allclose(old.numpy().reshape(-1), [1, 100.5, 200, 1, 100.5, 200])
