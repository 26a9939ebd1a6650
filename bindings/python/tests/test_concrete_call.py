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


def test_polymorphic_fast_path_outputs_and_fallbacks():
    """graft.function's fast path (one C call taking the argument tuple and making the output
    tensors): the output types and structures of the general path, symbolic outputs inside a
    trace, errors, and arguments it leaves to the general path."""
    @graft.function
    def pair(x, y):
        return {"p": x * y, "s": x + y}

    @graft.function
    def one(x):
        return x * 2.0

    a, b = graft.constant([1.0, 2.0]), graft.constant([3.0, 4.0])
    for _ in range(2):  # the first call traces, the second takes the cached entry
        out = pair(a, b)
        assert sorted(out) == ["p", "s"]
        assert type(out["p"]) is graft.framework.EagerTensor
        np.testing.assert_allclose(out["p"].numpy(), [3.0, 8.0])
        np.testing.assert_allclose(out["s"].numpy(), [4.0, 6.0])
        y = one(a)
        assert type(y) is graft.framework.EagerTensor
        np.testing.assert_allclose(y.numpy(), [2.0, 4.0])
    np.testing.assert_allclose(one(np.array([1.0, 3.0], np.float32)).numpy(), [2.0, 6.0])  # NumPy: general
    np.testing.assert_allclose(one(graft.Variable([5.0])).numpy(), [10.0])  # a variable: general

    @graft.function
    def outer(x):
        inner = one(x)
        assert type(inner) is not graft.framework.EagerTensor  # symbolic while tracing
        return inner + 1.0

    np.testing.assert_allclose(outer(a).numpy(), [3.0, 5.0])

    @graft.function
    def checked(x):
        return graft.debugging.check_numerics(x, "bad value")

    checked(a)
    with pytest.raises(graft.errors.InvalidArgumentError, match="bad value"):
        checked(graft.constant([np.nan, 1.0]))
    assert one.experimental_get_tracing_count() == 2  # float32[2] (tensors, NumPy, the trace), the variable
