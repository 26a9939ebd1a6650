#!/usr/bin/env python3
"""Checks that every public function that hands out a pointer says who owns it (issue #15).

A GRAFT_API declaration hands out a pointer when its return type contains '*' or it has a
parameter named out* / out_* of pointer-to-pointer type (T **out, const char **out,
void **out_data, graft_value **outputs, ...). Its comment is the comment block directly above
it; a comment may cover a tight group of consecutive declarations (no blank line between
them), and a trailing comment on the declaration's own lines counts too. The comment must use
an ownership word: "free with", "freed with", "graft_*_free", "borrowed", "belongs to",
"owned by", "static", "valid until", "valid while", "valid as long as" or "consumed".

Usage: check-ownership-docs.py [-v] DIR_OR_HEADER...   (e.g. c_api/include/graft)
  -v  also list every function checked, with the reason it was checked.
Exits 0 when every such function is documented, 1 listing those that are not, 2 on bad usage.
Python 3 standard library only.
"""
import os
import re
import sys

OWNERSHIP = re.compile(
    r"free with|freed with|graft_\w+_free|borrowed|belongs to|owned by|static|"
    r"valid until|valid while|valid as long as|consumed",
    re.IGNORECASE,
)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
# A declaration: GRAFT_API first on its line (not a #define), up to the first ';'.
DECL = re.compile(r"^[ \t]*GRAFT_API\b[^;]*;", re.MULTILINE)
IDENT = re.compile(r"[A-Za-z_]\w*")


def blank_out(text):
    """The text with every comment replaced by spaces (newlines kept, so offsets still match)."""
    return COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def split_params(params):
    """Splits a parameter list at top-level commas (function-pointer parameters nest)."""
    out, depth, cur = [], 0, []
    for ch in params:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur))
    return [p.strip() for p in out]


def param_name(param):
    m = re.search(r"\(\s*\*\s*(\w+)\s*\)", param)  # void (*destroy)(void *)
    if m:
        return m.group(1)
    names = IDENT.findall(param)
    return names[-1] if names else ""


def parse_decl(decl):
    """(name, return type, [reasons it hands out a pointer]) for one declaration's text."""
    decl = " ".join(decl.split())
    open_paren = decl.index("(")
    head = decl[:open_paren]
    name = IDENT.findall(head)[-1]
    ret = head[: head.rindex(name)]
    ret = ret.replace("GRAFT_API", "").replace("GRAFT_MUST_USE_RESULT", "").strip()
    close_paren = decl.rindex(")")
    reasons = []
    if "*" in ret:
        reasons.append("returns " + ret.replace(" *", "*"))
    for p in split_params(decl[open_paren + 1 : close_paren]):
        pname = param_name(p)
        # T **out: written through, so the pointee is no const pointer (const char *const *output_keys
        # is an input array).
        if (re.match(r"out", pname) and p.count("*") >= 2 and not re.search(r"\(\s*\*", p)
                and not re.search(r"\*\s*const\b", p)):
            reasons.append("out-parameter " + pname)
    return name, ret, reasons


def check_header(path):
    """[(line, name, reasons, documented)] for each declaration of path that hands out a pointer."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    stripped = blank_out(text)
    lines = text.split("\n")
    line_of = lambda offset: text.count("\n", 0, offset)  # 0-based

    comments = [(line_of(m.start()), line_of(m.end() - 1), m.group(0)) for m in COMMENT.finditer(text)]
    decls = []
    for m in DECL.finditer(stripped):
        decls.append((line_of(m.start()), line_of(m.end() - 1), m.group(0)))
    decl_at_line = {}
    for start, end, _ in decls:
        for ln in range(start, end + 1):
            decl_at_line[ln] = start

    def code_on(ln):
        return stripped.split("\n")[ln].strip() if 0 <= ln < len(lines) else ""

    results = []
    for start, end, decl in decls:
        name, _, reasons = parse_decl(decl)
        if not reasons:
            continue
        docs = [c for c in comments if start <= c[0] <= end]  # trailing comments on its own lines
        ln = start - 1
        while ln >= 0:
            if ln in decl_at_line:  # part of a group: keep walking up past the sibling
                ln = decl_at_line[ln] - 1
                continue
            if lines[ln].strip() and not code_on(ln):  # only comment text on this line
                block = [c for c in comments if c[0] <= ln <= c[1]]
                docs.extend(block)
            break
        documented = any(OWNERSHIP.search(c[2]) for c in docs)
        results.append((start + 1, name, reasons, documented))
    return results


def main(argv):
    if len([a for a in argv[1:] if a != "-v"]) < 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    verbose = "-v" in argv[1:]
    args = [a for a in argv[1:] if a != "-v"]
    headers = []
    for arg in args:
        if os.path.isdir(arg):
            headers += sorted(os.path.join(arg, n) for n in os.listdir(arg) if n.endswith(".h"))
        elif os.path.isfile(arg):
            headers.append(arg)
        else:
            print(f"check-ownership-docs: no such file or directory: {arg}", file=sys.stderr)
            return 2
    if not headers:
        print("check-ownership-docs: no headers given", file=sys.stderr)
        return 2

    checked, missing = 0, []
    for h in headers:
        for line, name, reasons, documented in check_header(h):
            checked += 1
            if verbose:
                print(f"{'ok     ' if documented else 'MISSING'} {h}:{line}: {name} ({'; '.join(reasons)})")
            if not documented:
                missing.append(f"{h}:{line}: {name} ({'; '.join(reasons)}): its comment does not say who owns it")
    if checked == 0:
        print("check-ownership-docs: found no GRAFT_API function that hands out a pointer (parse error?)",
              file=sys.stderr)
        return 1
    for m in missing:
        print(m)
    if missing:
        print(f"check-ownership-docs: {len(missing)} of {checked} functions that hand out pointers lack an "
              "ownership word (free with graft_X_free, borrowed, valid until/while, static, consumed, ...)")
        return 1
    print(f"check-ownership-docs: all {checked} functions that hand out pointers say who owns them "
          f"({len(headers)} headers)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
