"""graft.image.resize (bilinear, nearest and bicubic, half-pixel centers as tf.image.resize) and
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
BICUBIC = [[[-1.0985567569732666, -0.35884755849838257], [0.24851256608963013, 1.8949989080429077],
            [3.534980297088623, 6.181650161743164], [6.7005181312561035, 9.813749313354492]],
           [[7.067453384399414, 9.429041862487793], [10.223093032836914, 13.189886093139648],
            [15.749214172363281, 19.429248809814453], [20.181419372558594, 24.235595703125]],
           [[15.2334623336792, 19.216930389404297], [20.197673797607422, 24.484769821166992],
            [27.96344757080078, 32.67684555053711], [33.66231918334961, 38.657440185546875]]]
BICUBIC_GRAD = [[[4.6912736892700195, 6.72426176071167], [9.600202560424805, 11.534225463867188],
                 [15.4916353225708, 17.524627685546875]],
                [[29.234111785888672, 31.267101287841797], [32.94829177856445, 34.8823127746582],
                 [40.03447723388672, 42.067466735839844]]]


@pytest.mark.parametrize("traced", [False, True])
def test_image_resize_and_gradients(traced):
    def f(x):
        with graft.GradientTape(persistent=True) as tape:
            tape.watch(x)
            b = graft.image.resize(x, [3, 4], method="bilinear")
            n = graft.image.resize(x, [3, 4], method=graft.image.ResizeMethod.NEAREST_NEIGHBOR)
            c = graft.image.resize(x, [3, 4], method=graft.image.ResizeMethod.BICUBIC)
            lb = graft.reduce_sum(b * WEIGHTS)
            ln = graft.reduce_sum(n * WEIGHTS)
            lc = graft.reduce_sum(c * WEIGHTS)
        return b, n, c, tape.gradient(lb, x), tape.gradient(ln, x), tape.gradient(lc, x)

    if traced:
        f = graft.function(f)
    b, n, c, gb, gn, gc = f(graft.constant(IMAGE))
    assert b.shape == (3, 4, 2) and b.dtype == graft.float32
    np.testing.assert_allclose(b.numpy(), BILINEAR, rtol=1e-6)
    np.testing.assert_array_equal(n.numpy(), IMAGE[[0, 1, 1], :][:, [0, 1, 1, 2]])
    np.testing.assert_allclose(gb.numpy(), BILINEAR_GRAD, rtol=1e-6)
    np.testing.assert_allclose(gn.numpy(), NEAREST_GRAD)
    assert c.shape == (3, 4, 2) and c.dtype == graft.float32
    np.testing.assert_allclose(c.numpy(), BICUBIC, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gc.numpy(), BICUBIC_GRAD, rtol=1e-5)


def test_image_resize_types_and_errors():
    u8 = np.array([[[[1], [200]]]], np.uint8)
    assert graft.image.resize(u8, [2, 3], method="nearest").dtype == graft.uint8
    assert graft.image.resize(u8, [2, 3]).dtype == graft.float32
    assert graft.image.resize(u8, [2, 3], method="bicubic").dtype == graft.float32
    with pytest.raises(ValueError, match="lanczos3"):
        graft.image.resize(u8, [2, 3], method="lanczos3")
    with pytest.raises(graft.errors.InvalidArgumentError, match="output dimensions must be positive"):
        graft.image.resize(u8, graft.constant([0, 3]))
    old = graft.compat.v1.image.resize_bilinear(u8, [2, 3], align_corners=True)
    np.testing.assert_allclose(old.numpy().reshape(-1), [1, 100.5, 200, 1, 100.5, 200])
    old = graft.compat.v1.image.resize_bicubic(u8, [2, 3], align_corners=True)
    np.testing.assert_allclose(old.numpy().reshape(-1), [1, 100.5, 200, 1, 100.5, 200], rtol=1e-6)
