"""graft.random.stateless_uniform / stateless_normal / stateless_truncated_normal: TensorFlow's
values for the same shape, seed and dtype (Philox, bit for bit), eagerly and in graft.function,
and no gradient through them. Expected values are TensorFlow 2.21's (tf.random.stateless_*)."""
import numpy as np
import pytest

import graft

UNIFORM = [[0.7251373529434204, 0.07715070247650146, 0.5419409275054932],
           [0.26232099533081055, 0.5479346513748169, 0.3882409334182739]]
UNIFORM_RANGE = [1.6256866455078125, -1.6142464876174927, 0.7097046375274658, -0.6883950233459473,
                 0.7396731376647949]
UNIFORM_F64 = [0.8010994197375154, 0.3355276235608775, 0.3834773681838828]
UNIFORM_I32 = [-5, -3, -8, -10, 7, 3]
FULL_I64 = [-6914749377162718899, 3936589988564917842, 3040406804523000505]
NORMAL = [0.6521323323249817, 4.344709396362305, 1.6963403224945068, -2.4077813625335693, -0.23064923286437988]
NORMAL_F16_BITS = [45457, 16048, 13714]
TRUNCATED = [-0.17393383383750916, 1.6723546981811523, 0.3481701612472534, -1.7038906812667847,
             0.6385190486907959, -1.309924602508545, -0.010434313677251339]


def _all():
    return (graft.random.stateless_uniform([2, 3], seed=[7, 11]),
            graft.random.stateless_uniform([5], seed=[7, 11], minval=-2.0, maxval=3.0),
            graft.random.stateless_uniform([3], seed=[7, 11], dtype=graft.float64, alg="philox"),
            graft.random.stateless_uniform([6], seed=[7, 11], minval=-10, maxval=10, dtype=graft.int32),
            graft.random.stateless_uniform([3], seed=[7, 11], minval=None, maxval=None, dtype=graft.int64),
            graft.random.stateless_normal([5], seed=graft.constant([3, 4], dtype=graft.int64), mean=1.0, stddev=2.0),
            graft.random.stateless_normal([3], seed=[3, 4], dtype=graft.float16),
            graft.random.stateless_truncated_normal([7], seed=[3, 4]))


@pytest.mark.parametrize("traced", [False, True])
def test_stateless_values_match_tensorflow(traced):
    outs = graft.function(_all)() if traced else _all()
    u, ur, u64, i32, full, n, n16, t = [o.numpy() for o in outs]
    assert u.dtype == np.float32 and u.shape == (2, 3)
    np.testing.assert_array_equal(u, np.float32(UNIFORM))
    np.testing.assert_array_equal(ur, np.float32(UNIFORM_RANGE))
    np.testing.assert_array_equal(u64, np.float64(UNIFORM_F64))
    assert i32.dtype == np.int32
    np.testing.assert_array_equal(i32, UNIFORM_I32)
    assert full.dtype == np.int64
    np.testing.assert_array_equal(full, FULL_I64)
    np.testing.assert_array_equal(n, np.float32(NORMAL))
    np.testing.assert_array_equal(n16.view(np.uint16), NORMAL_F16_BITS)
    np.testing.assert_array_equal(t, np.float32(TRUNCATED))


def test_static_shape_in_graph():
    @graft.function
    def f():
        return graft.random.stateless_normal([4, 2], seed=[1, 2])
    out = f.get_concrete_function().outputs[0] if hasattr(f, "get_concrete_function") else None
    if out is not None:
        assert out.shape.as_list() == [4, 2]
    assert f().shape == (4, 2)


def test_not_differentiable():
    x = graft.constant([1.0, 2.0, 3.0])
    with graft.GradientTape() as tape:
        tape.watch(x)
        noise = graft.random.stateless_uniform([3], seed=[5, 6])
        y = graft.reduce_sum(x * noise)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), noise.numpy())


def test_errors():
    with pytest.raises(ValueError, match="minval and maxval must be both"):
        graft.random.stateless_uniform([2], seed=[1, 2], maxval=None, dtype=graft.int32)
    with pytest.raises(graft.errors.InvalidArgumentError, match="ThreeFry"):
        graft.random.stateless_uniform([2], seed=[1, 2], alg="threefry")
    with pytest.raises(graft.errors.InvalidArgumentError, match="seed must have shape"):
        graft.random.stateless_normal([2], seed=[1, 2, 3])
