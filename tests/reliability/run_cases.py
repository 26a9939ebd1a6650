#!/usr/bin/env python3
"""Runs the reliability catalogue against the `graft` tool (README.md beside this script).

    run_cases.py TOOL OUTDIR [--generate [--conformance DIR]] [--memory-mb N] [--timeout S]
                 [--no-ulimit] [--jobs N] [--filter SUBSTR]

Each case of OUTDIR/cases.json runs as `TOOL ARGS...` in OUTDIR, under an address-space cap
(RLIMIT_AS, --memory-mb, default 4096) and a wall-clock limit (--timeout, default 20 s). A case
fails when the tool dies by a signal, runs out of time, reports a sanitizer error, exits with
another status than the case expects (1 for an error, 0 for a result, never 2: that would be a
bad command line, so a wrong case), misses a substring of the expected message, or fetches
other values than expected. Cases marked "known_bug" are expected to fail (XFAIL) and fail
the run when they pass, so that they get promoted; "sanitizer_bug" is the same, only with
--no-ulimit (the sanitizer builds).

With --no-ulimit (AddressSanitizer reserves terabytes of address space) there is no RLIMIT_AS;
the tool's own cap, `graft run --max-memory`, is given instead. The cap is set on this process
before any case starts, and every case inherits it: a preexec_fn in a process that runs
threads can deadlock in the child.

Prints one line per failure and "N cases: P passed, F failed"; exits 1 on any failure.
"""

import argparse
import concurrent.futures
import json
import math
import os
import resource
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import npy  # noqa: E402

SANITIZER_REPORTS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "ERROR: Sanitizer", "rss limit exhausted",
                     "runtime error:", "WARNING: ThreadSanitizer", "ERROR: MemorySanitizer")
MAX_MESSAGE_LINES = 10


def signal_name(n):
    try:
        return signal.Signals(n).name
    except ValueError:
        return "signal %d" % n


def decode(v):
    if v in ("nan", "inf", "-inf"):
        return float(v)
    return v


def close(got, want, rtol=1e-5, atol=1e-6):
    if isinstance(want, str):  # a byte string, written as latin-1 text
        return got == want.encode("latin-1")
    if isinstance(got, complex) or isinstance(want, complex):
        return abs(complex(got) - complex(want)) <= atol + rtol * abs(complex(want))
    if isinstance(want, float) or isinstance(got, float):
        g, w = float(got), float(want)
        if math.isnan(w) or math.isnan(g):
            return math.isnan(w) and math.isnan(g)
        if math.isinf(w) or math.isinf(g):
            return g == w
        return abs(g - w) <= atol + rtol * abs(w)
    return got == want


def check_output(outdir, tensor, want):
    """None when the fetched file holds the expected tensor, else what differs."""
    try:
        got = npy.read(os.path.join(outdir, want["file"]))
    except (OSError, npy.NpyError) as e:
        return "%s: cannot read the fetched tensor: %s" % (tensor, e)
    if got.dtype != want["dtype"] or list(got.shape) != want["shape"]:
        return "%s: %s %s, expected %s %s" % (tensor, got.dtype, list(got.shape), want["dtype"], want["shape"])
    values = want["values"] if got.dtype == "S" else [decode(v) for v in want["values"]]
    rtol, atol = want.get("rtol", 1e-5), want.get("atol", 1e-6)
    for i, (g, w) in enumerate(zip(got.values, values)):
        if not close(g, w, rtol, atol):
            return "%s: element %d is %r, expected %r" % (tensor, i, g, w)
    return None


def command(tool, case, args):
    cmd = [tool] + case["args"]
    if args.no_ulimit and case["args"][:1] == ["run"] and args.memory_mb:
        cmd[3:3] = ["--max-memory", "%dM" % args.memory_mb]  # after "run PATH"
    return cmd


def run_case(tool, outdir, case, args):
    """None when the case behaves as it must, else why not."""
    why, status, err, elapsed = run_and_check(tool, outdir, case, args)
    if args.verbose:
        print("%-45s %5.2fs exit %s %s" % (case["name"], elapsed, status, err.splitlines()[0][:300] if err else ""))
    return why


def run_and_check(tool, outdir, case, args):
    """(why the case fails or None, exit status, stderr, seconds)."""
    for want in case.get("outputs", {}).values():
        path = os.path.join(outdir, want["file"])
        if os.path.exists(path):
            os.remove(path)
    limit = case.get("timeout", args.timeout)
    start = time.monotonic()
    try:
        proc = subprocess.run(command(tool, case, args), cwd=outdir, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=limit, check=False)
    except subprocess.TimeoutExpired:
        return "timed out after %g s" % limit, None, "", limit
    elapsed = time.monotonic() - start
    err = proc.stderr.decode("utf-8", "replace").strip()
    out = proc.stdout.decode("utf-8", "replace")
    return judge(outdir, case, proc.returncode, out, err, elapsed), proc.returncode, err, elapsed


def judge(outdir, case, status, out, err, elapsed):
    """None when a finished run is what the case expects, else why not."""
    first = err.splitlines()[0] if err else ""
    if status < 0:
        return "killed by %s (%.1f s)%s" % (signal_name(-status), elapsed, ": " + first if first else "")
    for report in SANITIZER_REPORTS:
        if report in err:
            return "sanitizer: %s" % next(l for l in err.splitlines() if report in l).strip()
    expect = case["expect"]
    if status == 2:
        return "exit status 2 (a bad command line: the case is wrong): %s" % first
    if expect == "ok" and status != 0:
        return "exit status %d, expected success: %s" % (status, first)
    if expect == "error" and status != 1:
        return "exit status %d, expected an error" % status
    if status not in (0, 1):
        return "exit status %d: %s" % (status, first)
    if status == 1:
        if not err:
            return "exit status 1 with nothing on stderr"
        if len(err.splitlines()) > MAX_MESSAGE_LINES:
            return "a %d-line message on stderr, expected a short one: %s" % (len(err.splitlines()), first)
        missing = [m for m in case.get("message", []) if m not in err]
        if missing:
            return "message lacks %s: %s" % (", ".join(repr(m) for m in missing), err)
        return None
    for text in case.get("stdout", []):
        if text not in out:
            return "stdout lacks %r" % text
    if case.get("stdout_json"):
        try:
            json.loads(out)
        except ValueError as e:
            return "stdout is not JSON: %s" % e
    for tensor, want in sorted(case.get("outputs", {}).items()):
        why = check_output(outdir, tensor, want)
        if why:
            return why
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tool")
    parser.add_argument("outdir")
    parser.add_argument("--generate", action="store_true", help="run make_cases.py into OUTDIR first")
    parser.add_argument("--conformance", help="with --generate: the conformance folder")
    parser.add_argument("--memory-mb", type=int, default=4096, help="address-space cap per case (MB)")
    parser.add_argument("--timeout", type=float, default=20, help="wall-clock limit per case (s)")
    parser.add_argument("--no-ulimit", action="store_true", help="no RLIMIT_AS; pass --max-memory instead")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--filter", default="", help="only the cases whose name contains this")
    parser.add_argument("--verbose", action="store_true", help="print every case's status, time and message")
    args = parser.parse_args(argv)
    tool, outdir = os.path.abspath(args.tool), os.path.abspath(args.outdir)
    if args.generate:
        import make_cases
        print("%d cases generated in %s" % (make_cases.generate(outdir, args.conformance), outdir))
    with open(os.path.join(outdir, "cases.json"), encoding="utf-8") as f:
        cases = [c for c in json.load(f) if args.filter in c["name"]]
    os.makedirs(os.path.join(outdir, "results"), exist_ok=True)
    skipped = 0
    if args.no_ulimit:
        # Cases that only the address-space cap keeps from exhausting the machine are skipped;
        # a sanitizer build stops at an RSS limit instead of growing without bound.
        skipped = sum(1 for c in cases if c.get("needs_ulimit"))
        cases = [c for c in cases if not c.get("needs_ulimit")]
        rss = "hard_rss_limit_mb=%d" % (args.memory_mb + 1024)
        os.environ["ASAN_OPTIONS"] = ":".join(filter(None, [os.environ.get("ASAN_OPTIONS"), rss]))
    else:
        cap = args.memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    start = time.monotonic()
    passed = failed = xfail = 0
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = pool.map(lambda case: (case, run_case(tool, outdir, case, args)), cases)
        for case, why in results:
            bug = case.get("known_bug")
            if case.get("sanitizer_bug") and args.no_ulimit:
                bug = case["sanitizer_bug"]  # what a sanitizer finds: release builds pass the case
            if why is None and bug:
                failed += 1
                print("FAIL: %s: passes, but is marked known_bug (%s): take the mark off" % (case["name"], bug))
            elif why is None:
                passed += 1
            elif bug:
                xfail += 1
                print("XFAIL: %s [%s]: %s" % (case["name"], bug, why))
            else:
                failed += 1
                print("FAIL: %s (%s): %s" % (case["name"], " ".join(case["args"]), why))
            sys.stdout.flush()
    summary = "%d cases: %d passed, %d failed" % (len(cases), passed, failed)
    if xfail:
        summary += ", %d expected failures (known bugs)" % xfail
    if skipped:
        summary += ", %d skipped (they need the address-space cap)" % skipped
    print("%s (%.0f s)" % (summary, time.monotonic() - start))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
