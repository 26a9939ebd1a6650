"""ConcreteFunction.__call__: positional eager tensors take a fast path that must give what the
general path gives, and its errors."""
import numpy as np
import pytest

import graft


def test_concrete_calls_fast_and_general():
    @graft.function
    def f(x, y):
        return x * y, x + y

    a, b = graft.constant([1.0, 2.0]), graft.constant([3.0, 4.0])
    cf = f.get_concrete_function(a, b)
    p, s = cf(a, b)  # the fast path
    np.testing.assert_allclose(p.numpy(), [3.0, 8.0])
    np.testing.assert_allclose(s.numpy(), [4.0, 6.0])
    p2, s2 = cf(x=a, y=b)  # keywords: the general path
    np.testing.assert_allclose(p2.numpy(), p.numpy())
    np.testing.assert_allclose(s2.numpy(), s.numpy())
    with pytest.raises((graft.errors.InvalidArgumentError, TypeError)):
        cf(graft.constant([1, 2]), b)  # int32 where float32 was traced
    with pytest.raises(TypeError):
        cf(a)

    @graft.function
    def outer(x):
        return cf(x, x)[0]  # symbolic tensors: the general path inside a trace

    np.testing.assert_allclose(outer(a).numpy(), [1.0, 4.0])


def test_concrete_from_input_signature():
    @graft.function(input_signature=[graft.TensorSpec([None], graft.float32)])
    def g(x):
        return x * 2.0

    cf = g.get_concrete_function()
    np.testing.assert_allclose(cf(graft.constant([1.0, 5.0])).numpy(), [2.0, 10.0])
    with pytest.raises((graft.errors.InvalidArgumentError, TypeError, ValueError)):
        cf(graft.constant([[1.0]]))  # rank 2 where the signature says rank 1
