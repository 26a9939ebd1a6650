"""graft.strings.split: TensorFlow's tokens (StringSplitV2) for a scalar (a 1-D tensor, as
tf.strings.split) and for a vector (graft.strings.split returns a SparseTensorValue: the parts
of TensorFlow's RaggedTensor as .to_sparse() gives them), eagerly and in graft.function.
Expected values are TensorFlow 2.21's."""
import numpy as np
import pytest

import graft


def _check(sp, indices, values, dense_shape):
    assert sp.indices.dtype == graft.int64 and sp.dense_shape.dtype == graft.int64
    np.testing.assert_array_equal(sp.indices.numpy().reshape(-1, 2), np.array(indices, np.int64).reshape(-1, 2))
    assert list(sp.values.numpy()) == values
    np.testing.assert_array_equal(sp.dense_shape.numpy(), dense_shape)


@pytest.mark.parametrize("traced", [False, True])
def test_split_matches_tensorflow(traced):
    def f():
        return (graft.strings.split(["hello  world", "a,b c", "", " x "]),
                graft.strings.split(["a,b,,c", "d"], sep=",", maxsplit=2),
                graft.strings.split(" one two  three "),
                graft.strings.split("a<>b<>c", sep="<>"))
    ws, comma, scalar, multi = graft.function(f)() if traced else f()
    _check(ws, [[0, 0], [0, 1], [1, 0], [1, 1], [3, 0]], [b"hello", b"world", b"a,b", b"c", b"x"], [4, 2])
    _check(comma, [[0, 0], [0, 1], [0, 2], [1, 0]], [b"a", b"b", b",c", b"d"], [2, 3])
    assert list(scalar.numpy()) == [b"one", b"two", b"three"]
    assert list(multi.numpy()) == [b"a", b"b", b"c"]


def test_sparse_value_unpacks():
    indices, values, dense_shape = graft.strings.split(["a b"])
    assert list(values.numpy()) == [b"a", b"b"]
    np.testing.assert_array_equal(dense_shape.numpy(), [1, 2])


def test_rank_two_refused():
    with pytest.raises(ValueError, match="scalar or a vector"):
        graft.strings.split([["a b"]])
