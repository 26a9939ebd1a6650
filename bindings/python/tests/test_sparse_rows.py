"""Row-wise reads and updates of variables (sparse_read / gather on a variable, scatter_*), the
unsorted segment reductions, and their gradients: eagerly, in graft.function and in a Graph."""
import numpy as np
import pytest

import graft

TABLE = np.arange(12, dtype=np.float32).reshape(4, 3)


def test_unsorted_segment_sum_and_friends():
    data = np.array([[1, 2], [3, 4], [5, 6]], np.float32)
    ids = [0, -1, 0]
    np.testing.assert_allclose(graft.math.unsorted_segment_sum(data, ids, 3).numpy(), [[6, 8], [0, 0], [0, 0]])
    np.testing.assert_allclose(graft.math.unsorted_segment_prod(data, ids, 2).numpy(), [[5, 12], [1, 1]])
    np.testing.assert_allclose(graft.math.unsorted_segment_max(data, ids, 1).numpy(), [[5, 6]])
    with pytest.raises(graft.errors.InvalidArgumentError, match=r"segment_ids\[2\] = 5 is out of range \[0, 3\)"):
        graft.math.unsorted_segment_sum(data, [0, 1, 5], 3)


def test_gather_on_variable_reads_rows_and_differentiates():
    v = graft.Variable(TABLE)
    with graft.GradientTape() as tape:
        rows = graft.gather(v, [3, 1, 3])
        loss = graft.reduce_sum(rows * rows)
    np.testing.assert_allclose(rows.numpy(), TABLE[[3, 1, 3]])
    (g,) = tape.gradient(loss, [v])
    assert isinstance(g, graft.IndexedSlices)  # rows, as TensorFlow's tape gives them
    np.testing.assert_array_equal(g.indices.numpy(), [3, 1, 3])
    np.testing.assert_allclose(g.values.numpy(), 2 * TABLE[[3, 1, 3]])
    np.testing.assert_array_equal(g.dense_shape.numpy(), [4, 3])
    want = np.zeros_like(TABLE)
    for i in (3, 1, 3):
        want[i] += 2 * TABLE[i]
    np.testing.assert_allclose(graft.convert_to_tensor(g).numpy(), want)
    assert [w.name for w in tape.watched_variables()] == [v.name]


def test_gather_gradient_of_a_tensor_with_repeats():
    x = graft.constant(TABLE)
    with graft.GradientTape() as tape:
        tape.watch(x)
        y = graft.reduce_sum(graft.gather(x, [[0, 0], [2, 0]]))
    g = tape.gradient(y, x)
    assert isinstance(g, graft.IndexedSlices)
    np.testing.assert_allclose(graft.convert_to_tensor(g).numpy(), [[3, 3, 3], [0, 0, 0], [1, 1, 1], [0, 0, 0]])


def test_scatter_updates_in_place_eagerly():
    v = graft.Variable(TABLE)
    before = v.read_value()
    v.scatter_add(graft.IndexedSlices(values=np.ones((2, 3), np.float32), indices=[1, 1]))
    want = TABLE.copy()
    want[1] += 2
    np.testing.assert_allclose(v.numpy(), want)
    np.testing.assert_allclose(before.numpy(), TABLE)  # a value read earlier is not changed under the reader
    v.scatter_update(graft.IndexedSlices(values=[[-1, -1, -1]], indices=[0]))
    want[0] = -1
    np.testing.assert_allclose(v.numpy(), want)
    with pytest.raises(graft.errors.InvalidArgumentError, match=r"indices\[0\] = 9 is not in \[0, 4\)"):
        v.scatter_sub(graft.IndexedSlices(values=[[1, 1, 1]], indices=[9]))
    np.testing.assert_allclose(v.numpy(), want)
    with pytest.raises(TypeError, match="IndexedSlices"):
        v.scatter_add([1, 2, 3])


def test_embedding_training_step_in_a_function():
    emb = graft.Variable(TABLE)
    opt = graft.optimizers.SGD(learning_rate=0.5)

    @graft.function
    def step(ids):
        with graft.GradientTape() as tape:
            loss = graft.reduce_sum(graft.gather(emb, ids))
        grads = tape.gradient(loss, [emb])
        opt.apply_gradients(zip(grads, [emb]))
        return loss

    step(graft.constant([2, 2, 0]))
    want = TABLE.copy()
    want[2] -= 1.0
    want[0] -= 0.5
    np.testing.assert_allclose(emb.numpy(), want)


def test_scatter_and_sparse_read_in_a_function():
    v = graft.Variable(np.zeros((3, 2), np.float32))

    @graft.function
    def bump(i):
        v.scatter_add(graft.IndexedSlices(values=graft.ones([1, 2]), indices=graft.reshape(i, [1])))
        return v.sparse_read(i)

    bump(graft.constant(1))
    np.testing.assert_allclose(bump(graft.constant(1)).numpy(), [2, 2])
    np.testing.assert_allclose(v.numpy(), [[0, 0], [2, 2], [0, 0]])


def test_rows_in_a_graph():
    g = graft.Graph()
    with g.as_default():
        v = graft.Variable(TABLE, name="emb")
        rows = graft.gather(v, [1, 2])
        assert rows.op.type == "ResourceGather"
        (dv,) = graft.gradients(graft.reduce_sum(rows), [v])
        assert isinstance(dv, graft.IndexedSlices)  # only a gather reads v: rows, as TF
        dense = graft.convert_to_tensor(dv)
        upd = v.scatter_sub(graft.IndexedSlices(values=graft.ones([1, 3]), indices=[2]))
        init = graft.compat.v1.global_variables_initializer()
    with graft.compat.v1.Session(graph=g) as sess:
        sess.run(init)
        np.testing.assert_allclose(sess.run(rows), TABLE[[1, 2]])
        np.testing.assert_allclose(sess.run(dv.values), np.ones((2, 3)))
        np.testing.assert_array_equal(sess.run(dv.indices), [1, 2])
        np.testing.assert_array_equal(sess.run(dv.dense_shape), [4, 3])
        np.testing.assert_allclose(sess.run(dense), [[0, 0, 0], [1, 1, 1], [1, 1, 1], [0, 0, 0]])
        after = sess.run(upd)
    want = TABLE.copy()
    want[2] -= 1
    np.testing.assert_allclose(after, want)


@pytest.mark.parametrize("make_optimizer", [
    lambda: graft.compat.v1.train.GradientDescentOptimizer(0.5),
    lambda: graft.optimizers.SGD(learning_rate=0.5),
    lambda: graft.optimizers.Adam(learning_rate=0.5),
])
def test_graph_mode_optimizers_take_rows(make_optimizer):
    g = graft.Graph()
    with g.as_default():
        emb = graft.Variable(TABLE, name="emb")
        w = graft.Variable(np.ones((3,), np.float32), name="w")
        ids = graft.compat.v1.placeholder(graft.int32, [None])
        loss = graft.reduce_sum(graft.gather(emb, ids) * w)
        opt = make_optimizer()
        if isinstance(opt, graft.optimizers.Optimizer):
            train = opt.minimize(loss, [emb, w])
        else:
            train = opt.minimize(loss)
        init = graft.compat.v1.global_variables_initializer()
    with graft.compat.v1.Session(graph=g) as sess:
        sess.run(init)
        sess.run(train, feed_dict={ids: np.array([3, 3, 0], np.int32)})
        after = sess.run(emb)
    np.testing.assert_allclose(after[1:3], TABLE[1:3])  # rows no id named are untouched
    if not isinstance(opt, graft.optimizers.Adam):
        want = TABLE.copy()
        want[3] -= 2 * 0.5
        want[0] -= 0.5
        np.testing.assert_allclose(after, want)
    else:
        assert np.all(after[[0, 3]] < TABLE[[0, 3]])


def test_indexed_slices_convert_to_dense():
    s = graft.IndexedSlices(values=graft.constant([[1.0, 2.0], [3.0, 4.0]]), indices=graft.constant([1, 1]),
                            dense_shape=graft.constant([3, 2]))
    np.testing.assert_allclose(graft.convert_to_tensor(s).numpy(), [[0, 0], [4, 6], [0, 0]])
    with pytest.raises(ValueError, match="dense_shape"):
        graft.convert_to_tensor(graft.IndexedSlices(values=[[1.0]], indices=[0]))


def _train_embedding(make_optimizer, sparse, steps=2):
    g = graft.Graph()
    with g.as_default():
        emb = graft.Variable(TABLE, name="emb")
        ids = graft.constant([3, 3, 0])
        rows = graft.gather(emb if sparse else emb.read_value(), ids)
        loss = graft.reduce_sum(rows * rows * graft.constant([1.0, 2.0, 3.0]))
        opt = make_optimizer()
        train = opt.minimize(loss, [emb]) if isinstance(opt, graft.optimizers.Optimizer) else opt.minimize(loss)
        types = {op.type for op in g.get_operations()}
        init = graft.compat.v1.global_variables_initializer()
    with graft.compat.v1.Session(graph=g) as sess:
        sess.run(init)
        for _ in range(steps):
            sess.run(train)
        return sess.run(emb), types


@pytest.mark.parametrize("make_optimizer, sparse_op", [
    (lambda: graft.optimizers.Adagrad(learning_rate=0.1), "ResourceSparseApplyAdagradV2"),
    (lambda: graft.compat.v1.train.AdagradOptimizer(0.1), "ResourceSparseApplyAdagrad"),
])
def test_row_updates_equal_dense_updates(make_optimizer, sparse_op):
    # Adagrad's row-wise update (duplicates summed first) is the dense update exactly.
    rows, types = _train_embedding(make_optimizer, sparse=True)
    dense, dense_types = _train_embedding(make_optimizer, sparse=False)
    assert sparse_op in types and sparse_op not in dense_types
    np.testing.assert_allclose(rows, dense, rtol=1e-6)
    np.testing.assert_allclose(rows[1:3], TABLE[1:3])


@pytest.mark.parametrize("make_optimizer, sparse_op", [
    (lambda: graft.compat.v1.train.MomentumOptimizer(0.1, 0.9), "ResourceSparseApplyMomentum"),
    (lambda: graft.compat.v1.train.RMSPropOptimizer(0.1, momentum=0.5), "ResourceSparseApplyRMSProp"),
])
def test_tf1_lazy_row_updates(make_optimizer, sparse_op):
    # TensorFlow 1's sparse momentum and RMSProp move only the named rows' slots; in their first
    # step (all slots at their initial values) that equals the dense step.
    rows, types = _train_embedding(make_optimizer, sparse=True, steps=1)
    dense, _ = _train_embedding(make_optimizer, sparse=False, steps=1)
    assert sparse_op in types
    np.testing.assert_allclose(rows, dense, rtol=1e-6)


def test_eager_embedding_step_touches_only_rows():
    emb = graft.Variable(TABLE)
    opt = graft.optimizers.SGD(learning_rate=0.5)
    with graft.GradientTape() as tape:
        loss = graft.reduce_sum(graft.gather(emb, [0, 0]))
    (g,) = tape.gradient(loss, [emb])
    assert isinstance(g, graft.IndexedSlices)
    opt.apply_gradients([(g, emb)])
    want = TABLE.copy()
    want[0] -= 1.0
    np.testing.assert_allclose(emb.numpy(), want)
