"""The catalogue being generated: writes each case's files under OUTDIR and collects the case
records that become OUTDIR/cases.json (the format is described in README.md)."""

import math
import os

import pb


def error(*message):
    """The tool must fail cleanly (exit status 1) with every substring in its message."""
    return {"expect": "error", "message": list(message)}


def either():
    """A corrupted file that may still load, or a graph that Graft runs where TensorFlow refuses
    it (say so in a note): exit status 0, or 1 with a message."""
    return {"expect": "error_or_ok"}


def value(dtype, shape, values, rtol=None, atol=None):
    """An expected fetched tensor: dtype as in .npy ('f4', 'i4', 'i8', 'b1', 'S'), shape and
    row-major values (floats may be nan/inf; they are written as strings). Floats match within
    atol + rtol * |expected| (default 1e-6 and 1e-5)."""
    def enc(v):
        if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
            return str(v)
        if isinstance(v, bytes):
            return v.decode("latin-1")
        return v
    out = {"dtype": dtype, "shape": list(shape), "values": [enc(v) for v in values]}
    if rtol is not None:
        out["rtol"] = rtol
    if atol is not None:
        out["atol"] = atol
    return out


def ok(outputs=None, stdout=None, stdout_json=False):
    """The tool must succeed; outputs maps a fetched tensor to value(...), stdout lists
    substrings of its standard output, stdout_json asks that the output parse as JSON."""
    exp = {"expect": "ok", "outputs": dict(outputs or {})}
    if stdout:
        exp["stdout"] = list(stdout)
    if stdout_json:
        exp["stdout_json"] = True
    return exp


class Catalogue:
    def __init__(self, outdir):
        self.outdir = outdir
        self.cases = []
        self.names = set()

    def write(self, rel, data):
        path = os.path.join(self.outdir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        return rel

    def add(self, name, category, args, expect, known_bug=None, timeout=None, needs_ulimit=False, note=None,
            sanitizer_bug=None):
        """One case: graft ARGS (paths relative to OUTDIR) and what must happen. known_bug: it
        fails, for this reason; sanitizer_bug: it fails only under a sanitizer (the run with
        --no-ulimit), for this reason; needs_ulimit: only safe under the runner's address-space
        cap (skipped with --no-ulimit); note: what TensorFlow does, where the case accepts
        something else."""
        if name in self.names:
            raise ValueError("duplicate case name " + name)
        self.names.add(name)
        case = {"name": name, "category": category, "args": list(args)}
        case.update(expect)
        if known_bug:
            case["known_bug"] = known_bug
        if timeout:
            case["timeout"] = timeout
        if needs_ulimit:
            case["needs_ulimit"] = True
        if note:
            case["note"] = note
        if sanitizer_bug:
            case["sanitizer_bug"] = sanitizer_bug
        self.cases.append(case)

    def run_args(self, name, expect, fetches):
        """--fetch options: for an "ok" case each expected output goes to results/NAME.K.npy
        (recorded as its "file"); otherwise each fetch is printed."""
        args = []
        if expect["expect"] == "ok" and expect["outputs"]:
            for k, (tensor, want) in enumerate(sorted(expect["outputs"].items())):
                want["file"] = "results/%s.%d.npy" % (name, k)
                args += ["--fetch", "%s=%s" % (tensor, want["file"])]
        else:
            for f in fetches:
                args += ["--fetch", f]
        return args

    def graph(self, name, category, nodes, expect=None, fetch=None, feeds=(), functions=(), extra=(),
              producer=1882, min_consumer=None, known_bug=None, data=None, timeout=None, needs_ulimit=False,
              note=None, sanitizer_bug=None):
        """A GraphDef case: graphs/NAME.pb, run with `graft run` fetching fetch (default the
        node named NAME). The default expectation is an error naming that node."""
        if fetch is None:
            fetch = [name]
        elif isinstance(fetch, str):
            fetch = [fetch]
        if expect is None:
            expect = error("'%s'" % name)
        if data is None:
            data = pb.graph(nodes, functions, producer=producer, min_consumer=min_consumer)
        rel = self.write("graphs/%s.pb" % name, data)
        args = ["run", rel]
        for f in feeds:
            args += ["--feed", f]
        args += self.run_args(name, expect, fetch) + list(extra)
        self.add(name, category, args, expect, known_bug, timeout, needs_ulimit, note, sanitizer_bug)
