"""Session.run and callables without copies: a fed NumPy array is read in place (never written,
held only while Graft holds the tensor), and a fetched output that the run hands over whole
becomes the result array's memory. What is shared (a fed value, a constant, a variable's
value) is still copied out, so writing a result never changes the graph's state."""
import gc
import sys
import threading

import numpy as np
import pytest

import graft


def _graph():
    g = graft.Graph()
    with g.as_default():
        x = graft.compat.v1.placeholder(graft.float32, [None, 4], name="x")
        relu = graft.nn.relu(x)            # its only reader: would run in place on Graft's own memory
        doubled = x * 2.0
        ident = graft.identity(x)
        c = graft.constant([1.0, 2.0, 3.0, 4.0])
        v = graft.compat.v1.Variable(np.zeros(4, np.float32), name="v")
        assign = v.assign(x[0])
    return g, x, relu, doubled, ident, c, v, assign


def test_fed_array_is_read_in_place_and_never_written():
    g, x, relu, doubled, ident, c, v, assign = _graph()
    s = graft.compat.v1.Session(graph=g)
    xs = np.array([[-1, 2, -3, 4], [5, -6, 7, -8]], np.float32)
    before = xs.copy()
    refs = sys.getrefcount(xs)
    r, d = s.run([relu, doubled], {x: xs})
    np.testing.assert_array_equal(r, np.maximum(before, 0))
    np.testing.assert_array_equal(d, before * 2)
    np.testing.assert_array_equal(xs, before)
    # Graft holds the array only while it holds the tensor.
    assert sys.getrefcount(xs) == refs
    # The same through a callable, repeatedly.
    f = s.make_callable(relu, feed_list=[x])
    for _ in range(3):
        np.testing.assert_array_equal(f(xs), np.maximum(before, 0))
    np.testing.assert_array_equal(xs, before)
    assert sys.getrefcount(xs) == refs


def test_results_are_independent_of_feeds_constants_and_variables():
    g, x, relu, doubled, ident, c, v, assign = _graph()
    s = graft.compat.v1.Session(graph=g)
    s.run(v.initializer)
    xs = np.arange(8, dtype=np.float32).reshape(2, 4)
    got_x, got_ident, got_c, got_d = s.run([x, ident, c, doubled], {x: xs})
    for arr in (got_x, got_ident, got_c, got_d):
        assert arr.flags.writeable
    # A fetched feed is a copy: writing it leaves the caller's array alone.
    got_x[0, 0] = 100
    got_ident[0, 1] = 100
    assert xs[0, 0] == 0 and xs[0, 1] == 1
    # A fetched constant is a copy: the next run still sees the constant.
    got_c[:] = -1
    np.testing.assert_array_equal(s.run(c), [1, 2, 3, 4])
    # A computed output is the result's own memory: the next run makes a new one.
    got_d[:] = -1
    np.testing.assert_array_equal(s.run(doubled, {x: xs}), xs * 2)
    # A variable assigned from a feed keeps its own copy of the value.
    s.run(assign, {x: xs})
    xs[0, :] = 42
    np.testing.assert_array_equal(s.run(v), [0, 1, 2, 3])
    read = s.run(v)
    read[:] = 7
    np.testing.assert_array_equal(s.run(v), [0, 1, 2, 3])


def test_feeds_that_cannot_be_borrowed_are_copied():
    g, x, relu, doubled, ident, c, v, assign = _graph()
    s = graft.compat.v1.Session(graph=g)
    base = np.arange(16, dtype=np.float32).reshape(4, 4)
    strided = base[::2]                         # not C-contiguous
    np.testing.assert_array_equal(s.run(doubled, {x: strided}), strided * 2)
    raw = np.zeros(33, np.uint8)
    misaligned = raw[1:].view(np.float32)[:8].reshape(2, 4)  # address 1 byte past an aligned one
    misaligned[:] = np.arange(8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_array_equal(s.run(doubled, {x: misaligned}), misaligned * 2)
    np.testing.assert_array_equal(s.run(doubled, {x: [[1, 2, 3, 4]]}), [[2, 4, 6, 8]])
    ints = np.ones((1, 4), np.int64)             # converted to float32 first
    np.testing.assert_array_equal(s.run(doubled, {x: ints}), [[2, 2, 2, 2]])
    read_only = np.ones((1, 4), np.float32)
    read_only.flags.writeable = False
    np.testing.assert_array_equal(s.run(relu, {x: read_only}), [[1, 1, 1, 1]])
    with pytest.raises(ValueError, match="shape"):
        s.run(doubled, {x: np.ones((2, 3), np.float32)})


def test_no_copies_are_made():
    from graft import session as _session
    c = _session._c
    xs = np.arange(8, dtype=np.float32).reshape(2, 4)
    t = c.tensor_borrow_buffer(int(c.GRAFT_FLOAT32), [2, 4], xs)
    assert t.data_address() == xs.ctypes.data and not t.is_exclusive()
    del t
    with pytest.raises(Exception, match="12 bytes|16 bytes|bytes"):
        c.tensor_borrow_buffer(int(c.GRAFT_FLOAT32), [4], np.zeros(3, np.float32))
    with pytest.raises(Exception, match="C-contiguous"):
        c.tensor_borrow_buffer(int(c.GRAFT_FLOAT32), [2], np.zeros(4, np.float32)[::2])
    g, x, relu, doubled, ident, c_op, v, assign = _graph()
    s = graft.compat.v1.Session(graph=g)
    out, fed_back = s.run([doubled, x], {x: xs})
    assert not out.flags.owndata and out.base is not None   # the run's buffer, taken over
    assert fed_back.flags.owndata                            # a fed value: copied out


def test_results_stay_valid_after_the_session_and_graph_go():
    g, x, relu, doubled, ident, c, v, assign = _graph()
    s = graft.compat.v1.Session(graph=g)
    out = s.run(doubled, {x: np.ones((3, 4), np.float32)})
    s.close()
    del s, g, x, relu, doubled, ident, c, v, assign
    gc.collect()
    np.testing.assert_array_equal(out, np.full((3, 4), 2, np.float32))
    out += 1
    np.testing.assert_array_equal(out, np.full((3, 4), 3, np.float32))


def test_capped_session_copies_results():
    g, x, relu, doubled, ident, c, v, assign = _graph()
    s = graft.compat.v1.Session(graph=g, max_memory_bytes=1 << 20)
    # Results kept by the caller do not count against the cap: 40 results of 96 KiB each.
    kept = [s.run(doubled, {x: np.ones((6000, 4), np.float32)}) for _ in range(40)]
    assert all(k[0, 0] == 2 for k in kept)


def test_process_cap_copies_results():
    g, x, relu, doubled, ident, c, v, assign = _graph()
    s = graft.compat.v1.Session(graph=g)
    f = s.make_callable(doubled, feed_list=[x])
    graft.config.set_memory_limit(1 << 20)
    try:
        kept = [s.run(doubled, {x: np.ones((6000, 4), np.float32)}) for _ in range(20)]
        kept += [f(np.ones((6000, 4), np.float32)) for _ in range(20)]
        assert all(k[0, 0] == 2 for k in kept)
    finally:
        graft.config.set_memory_limit(0)


def test_borrowed_feeds_from_threads():
    g, x, relu, doubled, ident, c, v, assign = _graph()
    s = graft.compat.v1.Session(graph=g)
    errors = []

    def work(seed):
        try:
            rng = np.random.default_rng(seed)
            for _ in range(50):
                xs = rng.standard_normal((64, 4)).astype(np.float32)
                np.testing.assert_array_equal(s.run(relu, {x: xs}), np.maximum(xs, 0))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
