"""graft.distribute in a job of one process (pytest runs without mpirun): every collective gives
back its input, structures and buckets come back as they went in, and errors are clear. The
same code across 2 and 4 ranks is run by ctest (python.example_train_distributed_np2/np4,
examples/python/train_distributed.py; mpi.collectives_np2/np4 for the ops from C)."""
import numpy as np
import pytest

import graft

dist = graft.distribute


def test_a_process_alone_is_rank_0_of_1():
    assert dist.rank() == 0
    assert dist.size() == 1
    dist.barrier()


@pytest.mark.parametrize("op", ["sum", "mean", "min", "max", "prod"])
def test_all_reduce_of_one_rank_is_the_input(op):
    x = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
    np.testing.assert_array_equal(dist.all_reduce(graft.constant(x), op=op).numpy(), x)


def test_all_reduce_keeps_structures_and_dtypes_through_buckets():
    values = {"a": graft.constant(np.ones((2, 3), np.float32)), "b": [graft.constant([1, 2, 3], dtype=graft.int64),
              graft.constant(np.full(5, 2.5, np.float32))], "c": graft.constant(np.zeros((0, 4), np.float64))}
    out = dist.all_reduce(values, op="mean", bucket_bytes=64)
    assert set(out) == {"a", "b", "c"}
    assert out["a"].shape.as_list() == [2, 3] and out["a"].dtype == graft.float32
    assert out["b"][0].dtype == graft.int64
    np.testing.assert_array_equal(out["b"][0].numpy(), [1, 2, 3])
    np.testing.assert_array_equal(out["b"][1].numpy(), np.full(5, 2.5, np.float32))
    assert out["c"].shape.as_list() == [0, 4]


def test_all_reduce_packs_small_tensors_into_one_op():
    @graft.function
    def f(a, b, c):
        return dist.all_reduce([a, b, c])

    args = [graft.constant(np.ones((4, 4), np.float32)), graft.constant(np.ones(7, np.float32)),
            graft.constant(np.ones(3, np.float32))]
    out = f(*args)
    assert [o.shape.as_list() for o in out] == [[4, 4], [7], [3]]
    ops = [op.type for op in f.get_concrete_function(*args).graph.get_operations()]
    assert ops.count("CollectiveReduceV2") == 1


def test_gather_and_broadcast_of_one_rank():
    x = graft.constant([[1, 2], [3, 4]], dtype=graft.int32)
    np.testing.assert_array_equal(dist.all_gather(x).numpy(), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(dist.broadcast(graft.constant([1.5, 2.5])).numpy(), [1.5, 2.5])
    v = graft.Variable([3.0, 4.0])
    dist.broadcast_variables([v])
    np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])


def test_distributed_tape_gives_the_tapes_gradients():
    w = graft.Variable([1.0, 2.0])
    u = graft.Variable([5.0])  # not used: its gradient stays None
    with dist.DistributedGradientTape(graft.GradientTape()) as tape:
        loss = graft.reduce_sum(w * w)
    gw, gu = tape.gradient(loss, [w, u])
    np.testing.assert_array_equal(gw.numpy(), [2.0, 4.0])
    assert gu is None


def test_errors():
    with pytest.raises(ValueError, match="op must be one of"):
        dist.all_reduce(graft.constant([1.0]), op="median")
    with pytest.raises(ValueError, match="op must be one of"):
        dist.DistributedGradientTape(graft.GradientTape(), op="avg")
    # A group that is not the whole job: the op fails before any message (nothing is aborted).
    from graft.framework import apply_op
    keys = [graft.constant(v, dtype=graft.int32) for v in (3, 1, 12345)]
    with pytest.raises(graft.errors.InvalidArgumentError, match="group_size is 3 but the job has 1 processes"):
        apply_op("CollectiveReduceV2", [graft.constant([1.0])] + keys + [[]], {"merge_op": "Add", "final_op": "Id"})
    with pytest.raises(graft.errors.InvalidArgumentError, match="merge_op"):
        apply_op("CollectiveReduceV2", [graft.constant([1.0])] + keys + [[]], {"merge_op": "Sum", "final_op": "Id"})
    with pytest.raises(graft.errors.InvalidArgumentError, match="dimension to gather along"):
        dist.all_gather(graft.constant(1.0))
    # The process's collectives still work.
    np.testing.assert_array_equal(dist.all_reduce(graft.constant([1.0])).numpy(), [1.0])


def test_cluster_session_of_one_process():
    g = graft.Graph()
    with g.as_default():
        with graft.device("/job:worker/task:0"):
            x = graft.compat.v1.placeholder(graft.float32, [2])
            y = x * 3.0
        v = graft.Variable([1.0, 1.0])
        with graft.device("/job:worker/task:0"):
            step = v.assign_add(y)
        init = graft.compat.v1.global_variables_initializer()
    s = graft.Session(graph=g, cluster="worker:1")
    s.run(init)
    np.testing.assert_array_equal(s.run(y, {x: [1.0, 2.0]}), [3.0, 6.0])
    s.run(step, {x: [1.0, 1.0]})
    np.testing.assert_array_equal(s.run(v), [4.0, 4.0])
    with pytest.raises(graft.errors.FailedPreconditionError, match="only the others serve it"):
        s.serve()
    with pytest.raises(graft.errors.InvalidArgumentError, match="has 2 tasks but the job has 1 processes"):
        graft.Session(graph=g, cluster="worker:2")
    with pytest.raises(graft.errors.InvalidArgumentError, match="is not job:count"):
        graft.Session(graph=g, cluster="worker")
    with g.as_default():
        with graft.device("/job:ps/task:0"):
            z = x + 1.0
    with pytest.raises(graft.errors.InvalidArgumentError, match="/job:ps is not in the cluster spec 'worker:1'"):
        s.run(z, {x: [1.0, 2.0]})
    s.close()
