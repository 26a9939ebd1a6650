"""Session.make_callable: a run prepared once (graft_callable), called with the feed values in
feed_list's order, giving the fetch structure's values as Session.run does; its errors are
run's; it outlives Session.close."""
import gc

import numpy as np
import pytest

import graft


def _graph():
    g = graft.Graph()
    with g.as_default():
        x = graft.compat.v1.placeholder(graft.float32, [None], name="x")
        k = graft.compat.v1.placeholder(graft.int32, [], name="k")
        y = x * graft.cast(k, graft.float32)
        z = graft.reduce_sum(y)
    return g, x, k, y, z


def test_callable_matches_run():
    g, x, k, y, z = _graph()
    s = graft.compat.v1.Session(graph=g)
    f = s.make_callable([y, {"z": z}], feed_list=[x, k])
    for n, m in ((1, 2), (4, -3), (0, 5)):
        xs = np.arange(n, dtype=np.float32)
        got_y, got = f(xs, m)
        want_y, want = s.run([y, {"z": z}], {x: xs, k: m})
        np.testing.assert_array_equal(got_y, want_y)
        assert got["z"] == pytest.approx(want["z"])
        np.testing.assert_allclose(got_y, xs * m)
    # A single fetch, feeds named by string, an op as a target (None).
    f1 = s.make_callable(z, feed_list=["x:0", "k:0"])
    assert f1([1.0, 2.0], 3) == pytest.approx(9.0)
    f2 = s.make_callable([y.op, y], feed_list=[x, k])
    out = f2([1.0], 2)
    assert out[0] is None and out[1].tolist() == [2.0]


def test_callable_errors():
    g, x, k, y, z = _graph()
    s = graft.compat.v1.Session(graph=g)
    f = s.make_callable(y, feed_list=[x, k])
    with pytest.raises(TypeError, match="takes 2 feed values, got 1"):
        f([1.0])
    with pytest.raises(ValueError, match="Cannot feed value of shape"):
        f(np.zeros((2, 2), np.float32), 1)
    with pytest.raises(ValueError, match="Cannot feed value"):
        f([1.0], 1.5)
    with pytest.raises(TypeError, match="unexpected keyword"):
        f([1.0], 1, options=None)
    # Fetching a tensor that needs a placeholder the callable does not feed.
    with pytest.raises(graft.errors.InvalidArgumentError, match="k"):
        s.make_callable(y, feed_list=[x])([1.0])
    # Still usable after the errors.
    np.testing.assert_allclose(f([1.0, 2.0], 2), [2.0, 4.0])
    s.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        s.make_callable(y, feed_list=[x, k])


def test_callable_outlives_session_close():
    g, x, k, y, z = _graph()
    s = graft.compat.v1.Session(graph=g)
    f = s.make_callable(z, feed_list=[x, k])
    s.close()
    del s, g
    gc.collect()
    assert f([1.0, 2.0, 3.0], 2) == pytest.approx(12.0)
