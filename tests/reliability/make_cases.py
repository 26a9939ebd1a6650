#!/usr/bin/env python3
"""Generates the reliability catalogue: malicious graphs and corrupted files, each with the
`graft` command that runs it and what must happen (README.md beside this script).

    make_cases.py OUTDIR [--conformance DIR]

Writes OUTDIR/graphs/*.pb, OUTDIR/feeds/*.npy, OUTDIR/models/* (corrupted copies of the
conformance SavedModels, only with --conformance) and OUTDIR/cases.json. The output depends
only on the inputs: corruptions are drawn from a seeded random.Random. Python's standard
library only.
"""

import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cases_alloc  # noqa: E402
import cases_attrs  # noqa: E402
import cases_const  # noqa: E402
import cases_files  # noqa: E402
import cases_gradients  # noqa: E402
import cases_indices  # noqa: E402
import cases_structure  # noqa: E402
import cases_values  # noqa: E402
from catalogue import Catalogue  # noqa: E402

GRAPH_FAMILIES = (cases_alloc, cases_attrs, cases_indices, cases_const, cases_values, cases_structure,
                  cases_gradients)
OWNED = ("graphs", "feeds", "models", "results", "cases.json")


def generate(outdir, conformance=None):
    """Writes the catalogue into outdir; returns the number of cases."""
    os.makedirs(outdir, exist_ok=True)
    for entry in OWNED:
        path = os.path.join(outdir, entry)
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif os.path.exists(path):
            os.remove(path)
    c = Catalogue(outdir)
    for family in GRAPH_FAMILIES:
        family.add(c)
    cases_files.add(c, conformance)
    os.makedirs(os.path.join(outdir, "results"), exist_ok=True)
    with open(os.path.join(outdir, "cases.json"), "w", encoding="utf-8") as f:
        json.dump(c.cases, f, indent=1, sort_keys=True)
        f.write("\n")
    return len(c.cases)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("--conformance", help="the conformance folder (../shared/conformance)")
    args = parser.parse_args(argv)
    n = generate(args.outdir, args.conformance)
    print("%d cases written to %s" % (n, os.path.join(args.outdir, "cases.json")))
    if not args.conformance or not os.path.isdir(os.path.join(args.conformance, "savedmodels")):
        print("no conformance SavedModels (--conformance): their corrupted copies are left out")
    return 0


if __name__ == "__main__":
    sys.exit(main())
