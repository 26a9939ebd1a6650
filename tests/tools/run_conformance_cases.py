#!/usr/bin/env python3
"""Runs the conformance cases with `graft run` and checks the fetched values.

    run_conformance_cases.py GRAFT_BINARY CONFORMANCE_DIR

Each case is CONFORMANCE_DIR/cases/NAME/case.json (its model relative to CONFORMANCE_DIR), or a
single-op case CONFORMANCE_DIR/ops/NAME/case.json (its model in its own folder), or a gradient
case CONFORMANCE_DIR/gradients/NAME/case.json; the format is in CONFORMANCE_DIR/README.md.
For a case of kind "graphdef", every step runs as

    graft run MODEL --feed NAME=@IN.npy ... --fetch NAME=OUT.npy ... --target OP ...

and each OUT.npy must have the expected file's dtype and shape, and values within
atol + rtol * |expected| of it elementwise (NaN matches NaN; strings and bools match exactly).
Each step is its own `graft run`, so state such as variables does not carry from one step to
the next (no GraphDef case needs it yet). A case of kind "savedmodel" runs all its steps in one
`graft run` on the loaded model, so variables carry over:

    graft run DIR --signature SIG --input KEY=@IN.npy ... --output KEY=OUT.npy ... --then ...

A gradient case (kind "gradient") runs as

    graft run MODEL --feed NAME=@IN.npy ... --grad-y Y=@GRAD_Y.npy ... --grad-x X=OUT.npy ...

and each X with an expected .npy must match it as above, while an X expected null (TensorFlow
gives no gradient) must get none ("d/dX = None", no file). Symbolic gradients are partial
(issue #16): the gradient cases listed in gradients_pending.txt (beside this script, one name
a line with what is missing) are still run and reported, but their failure is expected, and
one that passes is an error (take it off the list), so the list only shrinks.

Without the conformance directory the whole run is skipped.

Prints one line per case and ends with "N passed, M failed" (and the expected failures);
exits 1 when a case fails that is not listed as pending, or a listed one passes.
Python's standard library only (no NumPy): the .npy files are read with struct.
"""

import ast
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

RUN_TIMEOUT_S = 300


class NpyError(Exception):
    pass


# descr type code + size -> struct format of one element (None for strings).
_NUMERIC = {
    ("b", 1): "?",
    ("i", 1): "b", ("i", 2): "h", ("i", 4): "i", ("i", 8): "q",
    ("u", 1): "B", ("u", 2): "H", ("u", 4): "I", ("u", 8): "Q",
    ("f", 2): "e", ("f", 4): "f", ("f", 8): "d",
    ("c", 8): "f", ("c", 16): "d",  # two of these per element
}


class Npy:
    """A .npy file: its dtype (kind, size), shape and elements (row-major)."""

    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        if data[:6] != b"\x93NUMPY":
            raise NpyError("%s: not a .npy file" % path)
        if len(data) < 10:
            raise NpyError("%s: truncated preamble" % path)
        major = data[6]
        if major == 1:
            (hlen,) = struct.unpack_from("<H", data, 8)
            start = 10
        elif major in (2, 3):
            if len(data) < 12:
                raise NpyError("%s: truncated preamble" % path)
            (hlen,) = struct.unpack_from("<I", data, 8)
            start = 12
        else:
            raise NpyError("%s: unsupported .npy version %d" % (path, major))
        if len(data) < start + hlen:
            raise NpyError("%s: truncated header" % path)
        header_text = data[start:start + hlen].decode("utf-8" if major == 3 else "latin-1")
        try:
            header = ast.literal_eval(header_text)
        except (ValueError, SyntaxError) as e:
            raise NpyError("%s: malformed header: %s" % (path, e))
        if not isinstance(header, dict) or set(header) != {"descr", "fortran_order", "shape"}:
            raise NpyError("%s: malformed header %r" % (path, header_text))
        if header["fortran_order"] and len(header["shape"]) > 1:
            raise NpyError("%s: Fortran order is not supported" % path)
        descr = header["descr"]
        if not isinstance(descr, str) or len(descr) < 2:
            raise NpyError("%s: unsupported descr %r" % (path, descr))
        order, code, size = descr[0], descr[1], descr[2:]
        if order not in "<>|=":
            order, code, size = "=", descr[0], descr[1:]
        if not size.isdigit():
            raise NpyError("%s: unsupported descr %r" % (path, descr))
        size = int(size)
        self.path = path
        self.kind = "S" if code == "a" else code
        self.itemsize = size
        self.shape = tuple(header["shape"])
        count = 1
        for d in self.shape:
            count *= d
        payload = data[start + hlen:]
        endian = ">" if order == ">" else "<"
        if self.kind in ("S", "U"):
            width = size * (4 if self.kind == "U" else 1)
            if len(payload) != count * width:
                raise NpyError("%s: %d data bytes, expected %d" % (path, len(payload), count * width))
            items = [payload[i * width:(i + 1) * width] for i in range(count)]
            if self.kind == "S":
                self.values = [b.rstrip(b"\0") for b in items]
            else:
                enc = "utf-32-be" if endian == ">" else "utf-32-le"
                self.values = [b.decode(enc).rstrip("\0").encode("utf-8") for b in items]
            self.kind = "S"  # both are byte strings for comparing
            return
        fmt = _NUMERIC.get((self.kind, size))
        if fmt is None:
            raise NpyError("%s: unsupported dtype %r" % (path, descr))
        per = 2 if self.kind == "c" else 1
        if len(payload) != count * size:
            raise NpyError("%s: %d data bytes, expected %d" % (path, len(payload), count * size))
        flat = struct.unpack(endian + fmt * (count * per), payload)
        if per == 2:
            self.values = [complex(flat[2 * i], flat[2 * i + 1]) for i in range(count)]
        else:
            self.values = list(flat)

    def dtype(self):
        return "%s%d" % (self.kind, self.itemsize) if self.kind != "S" else "bytes"


def _close(got, want, rtol, atol):
    if isinstance(want, complex) or isinstance(got, complex):
        g, w = complex(got), complex(want)
        if any(math.isnan(x) for x in (g.real, g.imag, w.real, w.imag)):
            return (math.isnan(g.real) == math.isnan(w.real) and math.isnan(g.imag) == math.isnan(w.imag))
        if any(math.isinf(x) for x in (w.real, w.imag)):
            return g == w
        return abs(g - w) <= atol + rtol * abs(w)
    if isinstance(want, float) or isinstance(got, float):
        g, w = float(got), float(want)
        if math.isnan(w) or math.isnan(g):
            return math.isnan(w) and math.isnan(g)
        if math.isinf(w):
            return g == w
        return abs(g - w) <= atol + rtol * abs(w)
    if isinstance(want, bool) or isinstance(want, bytes):
        return got == want
    return abs(got - want) <= atol + rtol * abs(want)


def compare(got_path, want_path, rtol, atol):
    """None when the .npy at got_path matches the expected one, else what differs."""
    got, want = Npy(got_path), Npy(want_path)
    if got.dtype() != want.dtype():
        return "dtype %s, expected %s" % (got.dtype(), want.dtype())
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    bad = [i for i, (g, w) in enumerate(zip(got.values, want.values)) if not _close(g, w, rtol, atol)]
    if bad:
        i = bad[0]
        return "%d of %d values differ; the first, element %d, is %r, expected %r" % (
            len(bad), len(want.values), i, got.values[i], want.values[i])
    return None


def _run(cmd):
    """None when graft run succeeds, else why it failed."""
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=RUN_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return "graft run took more than %d s" % RUN_TIMEOUT_S
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip()
        return "graft run exited %d: %s" % (proc.returncode, err)
    return None


def _check(outputs, rtol, atol):
    for s, fetch, out, want in outputs:
        try:
            diff = compare(out, want, rtol, atol)
        except (OSError, NpyError) as e:
            return "step %d: %s: %s" % (s, fetch, e)
        if diff is not None:
            return "step %d: %s: %s" % (s, fetch, diff)
    return None


def run_case(graft, model_root, case_dir, name, case, work):
    """None when the case passes, else why it fails."""
    model = os.path.join(model_root, case["model"])
    rtol = float(case.get("rtol", 1e-5))
    atol = float(case.get("atol", 1e-6))
    saved_model = case.get("kind") == "savedmodel"
    feed_opt, fetch_opt = ("--input", "--output") if saved_model else ("--feed", "--fetch")
    cmd = [graft, "run", model]
    outputs = []
    for s, step in enumerate(case.get("steps", [])):
        if saved_model:
            if s > 0:
                cmd.append("--then")
            cmd += ["--signature", step.get("signature", "serving_default")]
        elif s > 0:
            cmd = [graft, "run", model]
        for feed, path in sorted(step.get("feeds", {}).items()):
            cmd += [feed_opt, "%s=@%s" % (feed, os.path.join(case_dir, path))]
        step_outputs = []
        for k, (fetch, path) in enumerate(sorted(step.get("fetches", {}).items())):
            out = os.path.join(work, "%s_step%d_%d.npy" % (name, s, k))
            step_outputs.append((s, fetch, out, os.path.join(case_dir, path)))
            cmd += [fetch_opt, "%s=%s" % (fetch, out)]
        outputs += step_outputs
        for target in step.get("targets", []):
            if saved_model:
                return "step %d: a SavedModel step cannot have targets" % s
            cmd += ["--target", target]
        if not saved_model:
            why = _run(cmd)
            if why is not None:
                return "step %d: %s" % (s, why)
            why = _check(step_outputs, rtol, atol)
            if why is not None:
                return why
    if saved_model:
        why = _run(cmd)
        if why is not None:
            return why
        return _check(outputs, rtol, atol)
    return None


def run_gradient_case(graft, case_dir, name, case, work):
    """None when the gradient case passes, else why it fails."""
    model = os.path.join(case_dir, case["model"])
    rtol = float(case.get("rtol", 1e-5))
    atol = float(case.get("atol", 1e-6))
    cmd = [graft, "run", model]
    for feed, path in sorted(case.get("feeds", {}).items()):
        cmd += ["--feed", "%s=@%s" % (feed, os.path.join(case_dir, path))]
    grad_ys = case.get("grad_ys", {})
    for y in case.get("ys", []):
        cmd += ["--grad-y", "%s=@%s" % (y, os.path.join(case_dir, grad_ys[y])) if y in grad_ys else y]
    outputs = []
    nones = []
    for k, x in enumerate(case.get("xs", [])):
        out = os.path.join(work, "%s_grad_%d.npy" % (name, k))
        if os.path.exists(out):
            os.remove(out)
        cmd += ["--grad-x", "%s=%s" % (x, out)]
        want = case.get("expected", {}).get(x)
        if want is None:
            nones.append((x, out))
        else:
            outputs.append((0, "d/d" + x, out, os.path.join(case_dir, want)))
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=RUN_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return "graft run took more than %d s" % RUN_TIMEOUT_S
    if proc.returncode != 0:
        return "graft run exited %d: %s" % (proc.returncode, proc.stderr.decode("utf-8", "replace").strip())
    stdout = proc.stdout.decode("utf-8", "replace").splitlines()
    for x, out in nones:
        if os.path.exists(out) or ("d/d%s = None" % x) not in stdout:
            return "d/d%s: a gradient, expected none" % x
    for _, fetch, out, _ in outputs:
        if not os.path.exists(out):
            return "%s: no gradient, expected one" % fetch
    why = _check(outputs, rtol, atol)
    return None if why is None else why.replace("step 0: ", "", 1)


def read_pending(path):
    """The case names listed in the pending file (text after '#' or the first blank is a note)."""
    names = set()
    if not os.path.isfile(path):
        return names
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                names.add(line.split()[0])
    return names


def main(argv):
    if len(argv) < 2:
        print("usage: %s GRAFT_BINARY [CONFORMANCE_DIR]" % argv[0], file=sys.stderr)
        return 2
    graft = os.path.abspath(argv[1])
    conformance = argv[2] if len(argv) > 2 else ""
    cases_dir = os.path.join(conformance, "cases")
    if not conformance or not os.path.isdir(cases_dir):
        print("skipped: no conformance cases at '%s'" % conformance)
        return 0

    passed = failed = skipped = expected_failures = 0
    pending = read_pending(os.path.join(os.path.dirname(os.path.abspath(__file__)), "gradients_pending.txt"))
    gradients_dir = os.path.join(conformance, "gradients")
    if os.path.isdir(gradients_dir):
        unknown = sorted(pending - set(os.listdir(gradients_dir)))
        for name in unknown:
            failed += 1
            print("FAIL: %s: listed in gradients_pending.txt but there is no such gradient case" % name)
    # cases/: models named from the conformance folder; ops/ and gradients/: each case's model
    # in its folder.
    suites = [(cases_dir, False), (os.path.join(conformance, "ops"), True), (gradients_dir, True)]
    all_cases = [(d, name, own) for d, own in suites if os.path.isdir(d) for name in sorted(os.listdir(d))]
    with tempfile.TemporaryDirectory() as work:
        for suite_dir, name, own_model in all_cases:
            case_dir = os.path.join(suite_dir, name)
            case_file = os.path.join(case_dir, "case.json")
            if not os.path.isfile(case_file):
                continue
            try:
                with open(case_file, encoding="utf-8") as f:
                    case = json.load(f)
            except (OSError, ValueError) as e:
                failed += 1
                print("FAIL: %s: cannot read case.json: %s" % (name, e))
                continue
            kind = case.get("kind")
            if kind == "gradient":
                why = run_gradient_case(graft, case_dir, name, case, work)
                listed = name in pending
                if why is None and listed:
                    failed += 1
                    print("FAIL: %s: passes but is listed in gradients_pending.txt (take it off the list)" % name)
                elif why is None:
                    passed += 1
                    print("ok: gradients/%s" % name)
                elif listed:
                    expected_failures += 1
                    print("expected FAIL (pending): gradients/%s: %s" % (name, why))
                else:
                    failed += 1
                    print("FAIL: gradients/%s: %s" % (name, why))
                continue
            if kind not in ("graphdef", "savedmodel"):
                failed += 1
                print("FAIL: %s: unknown kind %r" % (name, kind))
                continue
            why = run_case(graft, case_dir if own_model else conformance, case_dir, name, case, work)
            steps = len(case.get("steps", []))
            if why is None:
                passed += 1
                print("ok: %s (%d step%s)" % (name, steps, "" if steps == 1 else "s"))
            else:
                failed += 1
                print("FAIL: %s: %s" % (name, why))
    if skipped:
        print("%d skipped" % skipped)
    if expected_failures:
        print("%d expected failures (gradients_pending.txt)" % expected_failures)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
