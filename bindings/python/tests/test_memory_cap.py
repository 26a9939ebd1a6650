"""Memory caps from Python: Session(max_memory_bytes=...) and graft.config.experimental.
set_memory_limit: a graph asking for more than the cap raises ResourceExhaustedError naming the
op, the bytes and the cap, and everything stays usable."""
import numpy as np
import pytest

import graft


def _fill_graph():
    g = graft.Graph()
    with g.as_default():
        dims = graft.compat.v1.placeholder(graft.int64, [2], name="dims")
        out = graft.fill(dims, 1.0, name="big")
    return g, dims, out


def test_session_cap():
    g, dims, out = _fill_graph()
    s = graft.compat.v1.Session(graph=g, max_memory_bytes=1 << 20)
    with pytest.raises(graft.errors.ResourceExhaustedError, match=r"Fill op 'big'.*4194304 bytes.*1048576"):
        s.run(out, {dims: [1024, 1024]})
    np.testing.assert_array_equal(s.run(out, {dims: [2, 3]}), np.ones((2, 3), np.float32))
    # A session without a cap runs it.
    assert graft.compat.v1.Session(graph=g).run(out, {dims: [1024, 1024]}).shape == (1024, 1024)


def test_process_cap():
    g, dims, out = _fill_graph()
    s = graft.compat.v1.Session(graph=g)
    try:
        graft.config.experimental.set_memory_limit(1 << 20)
        assert graft.config.experimental.get_memory_limit() == 1 << 20
        with pytest.raises(graft.errors.ResourceExhaustedError, match="the process's memory cap"):
            s.run(out, {dims: [1024, 1024]})
        assert s.run(out, {dims: [4, 4]}).shape == (4, 4)
        with pytest.raises(ValueError):
            graft.config.experimental.set_memory_limit(-1)
    finally:
        graft.config.experimental.set_memory_limit(0)
    assert graft.config.experimental.get_memory_limit() == 0
    assert s.run(out, {dims: [1024, 1024]}).shape == (1024, 1024)
