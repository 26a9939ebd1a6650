"""Deadlines and Ctrl-C: RunOptions(timeout_in_ms) and ConfigProto(operation_timeout_in_ms) stop a
run with DeadlineExceededError (a loop inside included) and leave the session usable; Ctrl-C
(SIGINT) during Session.run, a callable or a graft.function call raises KeyboardInterrupt once
the run has stopped, instead of waiting for it to end; it leaves other threads' runs and later
runs alone."""
import os
import subprocess
import sys
import textwrap
import time

import pytest

import graft

BIG = 2**31 - 1  # iterations no test waits for


@graft.function
def count(n):
    return graft.while_loop(lambda i: i < n, lambda i: i + 1, [graft.constant(0)])[0]


def _loop_session(config=None):
    cf = count.get_concrete_function(graft.TensorSpec([], graft.int32))
    return graft.compat.v1.Session(graph=cf.graph, config=config), cf.inputs[0], cf.outputs[0]


def test_run_options_deadline():
    s, n, y = _loop_session()
    assert s.run(y, {n: 10}) == 10
    t = time.monotonic()
    with pytest.raises(graft.errors.DeadlineExceededError) as e:
        s.run(y, {n: BIG}, options=graft.compat.v1.RunOptions(timeout_in_ms=50))
    assert 0.045 <= time.monotonic() - t < 10
    assert "deadline" in str(e.value) and "iteration" in str(e.value)
    # Usable afterwards; a deadline that is not reached changes nothing.
    assert s.run(y, {n: 5}, options=graft.compat.v1.RunOptions(timeout_in_ms=60000)) == 5
    assert s.run(y, {n: 6}, options=graft.compat.v1.RunOptions(), run_metadata=graft.compat.v1.RunMetadata()) == 6
    with pytest.raises(ValueError, match="timeout_in_ms"):
        s.run(y, {n: 1}, options=graft.compat.v1.RunOptions(timeout_in_ms=-1))


def test_config_operation_timeout():
    s, n, y = _loop_session(graft.compat.v1.ConfigProto(operation_timeout_in_ms=50))
    with pytest.raises(graft.errors.DeadlineExceededError):
        s.run(y, {n: BIG})
    assert s.run(y, {n: 3}) == 3
    # RunOptions' own timeout wins over the session's.
    t = time.monotonic()
    with pytest.raises(graft.errors.DeadlineExceededError):
        s.run(y, {n: BIG}, options=graft.compat.v1.RunOptions(timeout_in_ms=150))
    assert time.monotonic() - t >= 0.14


def test_callable_options():
    s, n, y = _loop_session()
    f = s.make_callable(y, feed_list=[n], accept_options=True)
    assert f(4) == 4
    with pytest.raises(graft.errors.DeadlineExceededError):
        f(BIG, options=graft.compat.v1.RunOptions(timeout_in_ms=40))
    assert f(2) == 2
    plain = s.make_callable(y, feed_list=[n])
    with pytest.raises(TypeError):
        plain(2, options=graft.compat.v1.RunOptions(timeout_in_ms=40))


_SIGINT_SCRIPT = textwrap.dedent("""
    import os, signal, threading, time
    import graft

    @graft.function
    def count(n):
        return graft.while_loop(lambda i: i < n, lambda i: i + 1, [graft.constant(0)])[0]

    def interrupted(run):
        threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        t = time.monotonic()
        try:
            run()
        except KeyboardInterrupt:
            return time.monotonic() - t
        return None

    big = graft.constant(2**31 - 1)
    cf = count.get_concrete_function(graft.TensorSpec([], graft.int32))
    s = graft.compat.v1.Session(graph=cf.graph)
    f = s.make_callable(cf.outputs[0], feed_list=[cf.inputs[0]])
    results = [
        interrupted(lambda: count(big)),
        interrupted(lambda: s.run(cf.outputs[0], {cf.inputs[0]: 2**31 - 1})),
        interrupted(lambda: f(2**31 - 1)),
        interrupted(lambda: cf(big)),
    ]
    # Everything works afterwards.
    assert int(count(graft.constant(7))) == 7
    assert s.run(cf.outputs[0], {cf.inputs[0]: 3}) == 3
    # A Ctrl-C between runs cancels nothing later.
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    assert int(count(graft.constant(11))) == 11
    # Another thread's run is not cancelled: Python interrupts the main thread only.
    out = {}
    worker = threading.Thread(target=lambda: out.update(n=int(count(graft.constant(3_000_000)))))
    worker.start()
    time.sleep(0.05)
    results.append(interrupted(lambda: count(big)))
    worker.join()
    assert out.get("n") == 3_000_000, out
    print("ELAPSED", " ".join("none" if r is None else f"{r:.3f}" for r in results))
""")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_cancels_runs():
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-c", _SIGINT_SCRIPT], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("ELAPSED")][0]
    elapsed = line.split()[1:]
    assert len(elapsed) == 5
    for e in elapsed:
        assert e != "none", r.stdout  # each run was interrupted
        assert 0.15 <= float(e) < 30
