"""graft.lookup (tf.lookup): static tables from tensors and vocabulary files, mutable tables,
eagerly, in traced functions and in graphs (values as TensorFlow 2.21 gives them)."""
import numpy as np
import pytest

import graft


@pytest.fixture
def vocab(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("apple\nbanana\ncherry\n")
    return str(path)


def test_static_table_from_tensors():
    table = graft.lookup.StaticHashTable(
        graft.lookup.KeyValueTensorInitializer(graft.constant([1, 5, 9], graft.int64), [0.5, 1.5, 2.5]), -1.0)
    assert table.key_dtype == graft.int64 and table.value_dtype == graft.float32
    np.testing.assert_array_equal(table.lookup(graft.constant([[5, 2], [9, 1]], graft.int64)).numpy(),
                                  [[1.5, -1.0], [2.5, 0.5]])
    assert table.size().numpy() == 3
    keys, values = table.export()
    assert sorted(zip(keys.numpy().tolist(), values.numpy().tolist())) == [(1, 0.5), (5, 1.5), (9, 2.5)]


def test_vocabulary_file_in_a_traced_function(vocab):
    table = graft.lookup.StaticHashTable(
        graft.lookup.TextFileInitializer(vocab, graft.string, graft.lookup.TextFileIndex.WHOLE_LINE, graft.int64,
                                         graft.lookup.TextFileIndex.LINE_NUMBER), -1)

    @graft.function
    def ids(words):
        return table.lookup(words)

    np.testing.assert_array_equal(ids(graft.constant(["banana", "zzz", "apple"])).numpy(), [1, -1, 0])
    np.testing.assert_array_equal(ids(graft.constant(["cherry"])).numpy(), [2])


def test_wrong_key_dtype_is_an_error(vocab):
    table = graft.lookup.StaticHashTable(
        graft.lookup.TextFileInitializer(vocab, graft.string, -2, graft.int64, -1), -1)
    with pytest.raises((TypeError, ValueError, graft.errors.OpError)):
        table.lookup(graft.constant([1, 2]))
    with pytest.raises(graft.errors.OpError, match="vocab_size"):
        graft.lookup.StaticHashTable(graft.lookup.TextFileInitializer(vocab, graft.string, -2, graft.int64, -1,
                                                                      vocab_size=7), -1)


def test_mutable_table():
    table = graft.lookup.MutableHashTable(graft.string, graft.int64, 0)
    table.insert(["a", "b", "c"], [1, 2, 3])
    table.remove(["b"])
    np.testing.assert_array_equal(table.lookup(graft.constant(["a", "b", "c"])).numpy(), [1, 0, 3])
    assert table.size().numpy() == 2


def test_graph_mode_tables_initializer():
    g = graft.Graph()
    with g.as_default():
        table = graft.lookup.StaticHashTable(graft.lookup.KeyValueTensorInitializer(["x", "y"], [1, 2]), -1)
        out = table.lookup(graft.constant(["y", "z"]))
        init = graft.compat.v1.tables_initializer()
        with graft.compat.v1.Session(graph=g) as sess:
            with pytest.raises(graft.errors.FailedPreconditionError, match="not initialized"):
                sess.run(out)
            sess.run(init)
            np.testing.assert_array_equal(sess.run(out), [2, -1])
