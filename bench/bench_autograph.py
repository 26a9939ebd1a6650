"""AutoGraph costs: converting a ~200-line function (once; later calls hit the cache), and the
per-call cost of a converted, cached graft.function against the same function traced without
AutoGraph (and against hand-written graft.cond / graft.while_loop), in the same run.

Run with the Python package importable (PYTHONPATH=build/bindings/python/site):
    python3 bench/bench_autograph.py
"""
import importlib.util
import os
import sys
import tempfile
import time

import graft
from graft.autograph import conversion

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_python_call import per_call as best  # noqa: E402 - the same timing loop


def long_function_source(blocks):
    """A function of about 9 lines per block: ifs, a while with break, a for over a tensor."""
    lines = ["import graft", "", "", "def long_function(x, n):", "    total = x * 0", "    i = 0"]
    for b in range(blocks):
        lines += [
            f"    if x > {b}:",
            f"        total = total + x * {b}",
            "    else:",
            f"        total = total - {b}",
            f"    while i < n and total < {1000 + b}:",
            "        i += 1",
            "        if i % 7 == 0:",
            "            break",
            f"    total = total + {b} if total > 0 else total",
        ]
    lines += ["    return total + i", ""]
    return "\n".join(lines)


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    tmp = tempfile.mkdtemp(prefix="graft_bench_autograph_")
    path = os.path.join(tmp, "long_module.py")
    source = long_function_source(22)
    with open(path, "w") as f:
        f.write(source)
    fn = load(path, "long_module").long_function
    n_lines = source.count("\n") - 3

    def convert_uncached():
        conversion._code_cache.pop(fn.__code__, None)
        conversion._function_cache.pop(fn, None)
        conversion.convert(fn)
    convert_time = best(convert_uncached, 5)
    cached_time = best(lambda: conversion.convert(fn), 20000)

    x = graft.constant(3)
    n = graft.constant(50)
    traced_long = graft.function(fn)
    start = time.perf_counter()
    traced_long(x, n)
    trace_long = time.perf_counter() - start

    def plain(a, b):
        return a * b + a

    converted_plain = graft.function(plain)
    unconverted_plain = graft.function(plain, autograph=False)

    def branchy(a, b):
        if a > b:
            a = a - b
        else:
            a = a + b
        return a

    def branchy_by_hand(a, b):
        return graft.cond(a > b, lambda: a - b, lambda: a + b)

    def loop(a, b):
        while a < b:
            a = a * 2
        return a

    def loop_by_hand(a, b):
        return graft.while_loop(lambda v: v < b, lambda v: v * 2, [a])[0]

    converted_branchy = graft.function(branchy)
    hand_branchy = graft.function(branchy_by_hand, autograph=False)
    converted_loop = graft.function(loop)
    hand_loop = graft.function(loop_by_hand, autograph=False)
    a, b = graft.constant(5), graft.constant(3)
    calls = 20000
    rows_call = [
        ("no control flow, autograph=False (baseline)", best(lambda: unconverted_plain(a, b), calls)),
        ("no control flow, converted", best(lambda: converted_plain(a, b), calls)),
        ("if on a tensor, hand-written graft.cond", best(lambda: hand_branchy(a, b), calls)),
        ("if on a tensor, converted", best(lambda: converted_branchy(a, b), calls)),
        ("while on a tensor, hand-written while_loop", best(lambda: hand_loop(a, graft.constant(40)), calls)),
        ("while on a tensor, converted", best(lambda: converted_loop(a, graft.constant(40)), calls)),
    ]
    print(f"AutoGraph conversion of a {n_lines}-line function (goal: under 50 ms, once per function)")
    print(f"{'case':<46} {'ms':>9}")
    print(f"{'convert (parse, passes, compile)':<46} {convert_time * 1e3:>9.2f}")
    print(f"{'convert again (cached)':<46} {cached_time * 1e3:>9.5f}")
    print(f"{'first call: trace + run (conversion cached)':<46} {trace_long * 1e3:>9.2f}")
    print()
    print("Per call of a cached graft.function (eager tensor arguments)")
    print(f"{'case':<46} {'us/call':>9} {'vs base':>8}")
    base = rows_call[0][1]
    for name, t in rows_call:
        print(f"{name:<46} {t * 1e6:>9.2f} {t / base:>7.2f}x")
    pairs = [(rows_call[1][1], rows_call[0][1]), (rows_call[3][1], rows_call[2][1]), (rows_call[5][1], rows_call[4][1])]
    worst = max(c / h for c, h in pairs)
    print(f"\nworst converted / unconverted ratio: {worst:.2f}x (the converted code runs only while tracing)")
    if "--check" in sys.argv:
        ok = convert_time < 0.05 and worst < 1.5
        sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
