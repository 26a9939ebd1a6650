"""Per-call overhead of a cached graft.function from Python, against the same function called
through the C API in a loop (graft_function_call from C, in the same process and run).

Run with the Python package importable (PYTHONPATH=build/bindings/python/site):
    python3 bench/bench_python_call.py
"""
import time

import numpy as np

import graft
from graft import framework as _fw
from graft import graft_swig as _c


def per_call(fn, n, repeats=5):
    fn()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - start) / n)
    return best


def main():
    n = 20000
    x = graft.constant(np.float32(1.5))

    @graft.function
    def one_op(a):
        return a + a

    one_op(x)
    assert one_op.experimental_get_tracing_count() == 1
    c_fn = one_op._fast[1][0]
    args = _c.ArgList()
    args.add_value(x._value)
    c_time = min(_c.bench_c_function_calls(c_fn, _fw._context, args, n) for _ in range(5))
    py_time = per_call(lambda: one_op(x), n)

    @graft.function
    def two_args(a, b):
        return a * b

    two_args(x, x)
    py2_time = per_call(lambda: two_args(x, x), n)
    eager_time = per_call(lambda: x + x, n)
    c_op = min(_c.bench_c_function_calls(c_fn, _fw._context, args, 1) for _ in range(3))
    del c_op
    concrete = one_op.get_concrete_function(x)
    concrete_time = per_call(lambda: concrete(x), n)
    # The same op through a TensorFlow 1 session (a graph, a placeholder fed from NumPy).
    g = graft.Graph()
    with g.as_default():
        p = graft.compat.v1.placeholder(graft.float32, [])
        y = p + p
    session = graft.compat.v1.Session(graph=g)
    feed = np.float32(1.5)
    session.run(y, {p: feed})
    session_time = per_call(lambda: session.run(y, {p: feed}), n)

    rows = [
        ("C: graft_function_call (baseline)", c_time),
        ("Python: f(x), 1 op, cached", py_time),
        ("Python: f(x, y), 1 op, cached", py2_time),
        ("Python: eager x + x (one op, no function)", eager_time),
        ("Python: concrete function f'(x), 1 op", concrete_time),
        ("Python: Session.run(y, {p: x}), 1 op", session_time),
    ]
    print(f"{'case':<44} {'us/call':>9} {'vs C':>7} {'added us':>9}")
    for name, t in rows:
        print(f"{name:<44} {t * 1e6:9.2f} {t / c_time:7.2f} {(t - c_time) * 1e6:9.2f}")
    print(f"\nPython adds {(py_time - c_time) * 1e6:.2f} us per cached 1-op call (target: under 3 us)")


if __name__ == "__main__":
    main()
