#!/usr/bin/env python3
"""Generates the versioned function table of the C API (issue #20): graft/api.h and its initializer.

The order of the table is c_api/api_table.list (one function name per line; "# version N"
starts the functions that version N adds; other "#" lines are comments). The member types are
written out from the functions' prototypes in the public headers (c_api/include/graft/*.h), so
the struct is plain C99. Writes:
  c_api/include/graft/api.h     the public header: struct graft_api, GRAFT_API_VERSION, graft_api_get
  c_api/src/api_table.inc       GRAFT_API_ENTRY(name) per member, in order (api_table.cc's initializer)

Usage: gen-api-table.py [--check] [--library LIBGRAFT] [ROOT]
  (without --check, a function missing from the list is a warning and the files are written.)
  --check      write nothing: fail (exit 1) if a generated file is not what the list and the
               headers give, if a GRAFT_API function is missing from the list (or the list names
               one no header declares, or one twice), or if the list is not the table of the ABI
               baseline (abi/libgraft.abi) with functions appended: the table only grows.
  --library    also check that every graft_* function libgraft exports (nm -D) is in the list.
Python 3 standard library only.
"""
import os
import re
import subprocess
import sys

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
DECL = re.compile(r"^[ \t]*GRAFT_API\b[^;]*;", re.MULTILINE)
PROTO = re.compile(r"^GRAFT_API\s+(?:GRAFT_MUST_USE_RESULT\s+)?(.*?)\b(graft_\w+)\s*\((.*)\)\s*;$", re.DOTALL)
# Functions that are not in the table: the entry point itself.
NOT_IN_TABLE = {"graft_api_get"}
WIDTH = 110


def parse_headers(include_dir):
    """{name: (return type, parameters, header)} for every GRAFT_API function but api.h's."""
    out = {}
    for header in sorted(os.listdir(include_dir)):
        if not header.endswith(".h") or header == "api.h":
            continue
        text = COMMENT.sub(" ", open(os.path.join(include_dir, header)).read())
        for m in DECL.finditer(text):
            decl = " ".join(m.group(0).split())
            p = PROTO.match(decl)
            if not p:
                sys.exit(f"gen-api-table: cannot parse a declaration in {header}: {decl}")
            ret, name, params = p.group(1).strip(), p.group(2), p.group(3).strip()
            params = re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", params))
            out[name] = (ret, params, header)
    return out


def parse_list(path):
    """[(name, version)] in table order."""
    entries, version = [], 0
    for n, line in enumerate(open(path), 1):
        line = line.strip()
        if not line:
            continue
        m = re.match(r"#\s*version\s+(\d+)\s*$", line)
        if m:
            if int(m.group(1)) != version + 1:
                sys.exit(f"gen-api-table: {path}:{n}: version {m.group(1)} after version {version}")
            version = int(m.group(1))
            continue
        if line.startswith("#"):
            continue
        if not re.match(r"graft_\w+$", line):
            sys.exit(f"gen-api-table: {path}:{n}: not a function name: {line}")
        if version == 0:
            sys.exit(f"gen-api-table: {path}:{n}: {line} before the first '# version 1' line")
        entries.append((line, version))
    return entries


def baseline_order(abi_path):
    """The members of struct graft_api in the ABI baseline, in order ([] when it has none)."""
    if not os.path.exists(abi_path):
        return []
    text = open(abi_path).read()
    m = re.search(r"<class-decl name='graft_api'[^>]*>(.*?)</class-decl>", text, re.DOTALL)
    if not m:
        return []
    return re.findall(r"<data-member[^>]*>\s*<var-decl name='(\w+)'", m.group(1))


def member(ret, name, params):
    """One struct member: the prototype as a pointer, wrapped at parameters to WIDTH columns."""
    head = f"  {ret}{'' if ret.endswith('*') else ' '}(*{name[len('graft_'):]})("
    line = head + params + ");"
    if len(line) <= WIDTH:
        return line
    parts, depth, cur = [], 0, ""
    for ch in params:  # split at top-level commas (function-pointer parameters nest)
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    lines, cur = [], head
    for i, part in enumerate(parts):
        piece = part + ("," if i + 1 < len(parts) else ");")
        if cur.strip() and len(cur) + len(piece) + 1 > WIDTH and cur != head:
            lines.append(cur.rstrip())
            cur = "      " + piece
        else:
            cur += ("" if cur == head else " ") + piece
    lines.append(cur)
    return "\n".join(lines)


HEADER_TOP = """\
/*
 * graft/api.h: the whole C API as one versioned table of function pointers, for a host that
 * loads libgraft at run time (dlopen) and links nothing of it (issue #20; docs/plugins.md).
 *
 * GENERATED by scripts/gen-api-table.py from c_api/api_table.list and the prototypes in the
 * other public headers: do not edit. A new public function is appended to the list (never
 * inserted, never reordered) and the script rerun; the test capi.api_table fails until it is.
 *
 * A host resolves one symbol, graft_api_get, and calls everything else through the table:
 *
 *   void *lib = dlopen("libgraft.so.2", RTLD_NOW | RTLD_LOCAL);
 *   graft_api_get_fn get = (graft_api_get_fn)dlsym(lib, "graft_api_get");
 *   const graft_api *api = get(GRAFT_API_VERSION);
 *   if (api == NULL) ... (too old a libgraft: get(1)->error_last() says which versions it has)
 *   api->graph_new(&g); ...
 *
 * Each member is the public function of the same name with the prefix graft_ (member
 * session_run is graft_session_run): same prototype, documentation, ownership rules (what it
 * hands out is freed with the table's graft_*_free members, "borrowed" stays borrowed) and
 * thread safety. Member functions of a table may be called until the library is unloaded;
 * nothing Graft handed out (handles, tensors, strings, the table) may be used after dlclose.
 *
 * Versions: the table only grows. Version N has every member of version N - 1, in the same
 * place, and appends its own; a program compiled against version N reads only those members,
 * so it runs with any libgraft whose GRAFT_API_VERSION is N or newer.
 *
 * Thread safety: graft_api_get may be called from any thread; the table is immutable.
 */
#ifndef GRAFT_API_H
#define GRAFT_API_H

"""

HEADER_BOTTOM = """\
/*
 * The function table of API version `version` (1 to GRAFT_API_VERSION of the loaded library).
 * Static: the table belongs to libgraft and is valid until libgraft is unloaded; do not free it.
 * The same table serves every version the library has. Returns NULL for a version the library
 * does not have (newer than it, or 0), with a message naming the versions it has
 * (graft_error_last, GRAFT_EUNIMPLEMENTED).
 */
GRAFT_API const graft_api *graft_api_get(uint32_t version);

/* graft_api_get's type, for the pointer dlsym(lib, "graft_api_get") returns. */
typedef const graft_api *(*graft_api_get_fn)(uint32_t version);

GRAFT_END_DECL

#endif /* GRAFT_API_H */
"""


def generate(entries, protos):
    latest = entries[-1][1] if entries else 1
    includes = ["graft/graft.h"]
    graft_h = open(os.path.join(INCLUDE_DIR, "graft.h")).read()
    for name, _ in entries:
        header = "graft/" + protos[name][2]
        if f'"{header}"' not in graft_h and header not in includes:
            includes.append(header)
    out = [HEADER_TOP]
    out += [f'#include "{h}"\n' for h in includes]
    out.append("\n/* The newest table version these headers declare. */\n")
    out.append(f"#define GRAFT_API_VERSION {latest}\n\nGRAFT_BEGIN_DECL\n\n")
    out.append("/* The table: one pointer per public function, in c_api/api_table.list's order. */\n")
    out.append("typedef struct graft_api {\n")
    version = 0
    for name, v in entries:
        if v != version:
            count = sum(1 for _, w in entries if w <= v)
            out.append(f"{'' if version == 0 else chr(10)}  /* Version {v} (members 1 to {count}). */\n")
            version = v
        ret, params, _ = protos[name]
        out.append(member(ret, name, params) + "\n")
    out.append("} graft_api;\n\n")
    out.append(HEADER_BOTTOM)
    inc = ["/* GENERATED by scripts/gen-api-table.py from c_api/api_table.list: do not edit.\n",
           "   GRAFT_API_ENTRY(member) per member of graft_api, in order (c_api/src/api_table.cc). */\n"]
    inc += [f"GRAFT_API_ENTRY({name[len('graft_'):]})\n" for name, _ in entries]
    return "".join(out), "".join(inc)


def main(argv):
    global INCLUDE_DIR
    check, library, rest = False, None, []
    i = 0
    while i < len(argv):
        if argv[i] == "--check":
            check = True
        elif argv[i] == "--library":
            i += 1
            library = argv[i]
        else:
            rest.append(argv[i])
        i += 1
    root = rest[0] if rest else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    INCLUDE_DIR = os.path.join(root, "c_api", "include", "graft")
    list_path = os.path.join(root, "c_api", "api_table.list")
    protos = parse_headers(INCLUDE_DIR)
    entries = parse_list(list_path)
    names = [n for n, _ in entries]
    errors = []
    seen = set()
    for n in names:
        if n in seen:
            errors.append(f"{n} is in the list twice")
        seen.add(n)
        if n not in protos:
            errors.append(f"{n} is in the list but no public header declares it (GRAFT_API)")
    missing = [n for n in protos if n not in seen and n not in NOT_IN_TABLE]
    for n in missing:
        message = f"{n} ({protos[n][2]}) is not in c_api/api_table.list: append it (at the end)"
        if check:
            errors.append(message)
        else:  # writing: the table is made without it (the check fails until it is listed)
            print(f"gen-api-table: warning: {message}")
    if library:
        nm = subprocess.run(["nm", "-D", "--defined-only", library], capture_output=True, text=True, check=True)
        exported = {line.split()[-1].split("@")[0] for line in nm.stdout.splitlines() if line.strip()}
        for n in sorted(e for e in exported if e.startswith("graft_")):
            if n not in seen and n not in NOT_IN_TABLE:
                errors.append(f"libgraft exports {n}, which is not in c_api/api_table.list")
    base = baseline_order(os.path.join(root, "abi", "libgraft.abi"))
    members = [n[len("graft_"):] for n in names]
    if members[: len(base)] != base:
        at = next((k for k in range(min(len(base), len(members))) if base[k] != members[k]), min(len(base), len(members)))
        was = base[at] if at < len(base) else "(end)"
        now = members[at] if at < len(members) else "(end)"
        errors.append(f"the table changed against the ABI baseline (abi/libgraft.abi) at member {at + 1}: "
                      f"it was {was}, the list has {now}; the table only grows (append new functions at the end)")
    if errors:
        for e in errors:
            print(f"FAIL: {e}")
        return 1
    header, inc = generate(entries, protos)
    targets = [(os.path.join(INCLUDE_DIR, "api.h"), header), (os.path.join(root, "c_api", "src", "api_table.inc"), inc)]
    stale = []
    for path, text in targets:
        old = open(path).read() if os.path.exists(path) else None
        if old != text:
            if check:
                stale.append(os.path.relpath(path, root))
            else:
                with open(path, "w") as f:
                    f.write(text)
    if stale:
        for s in stale:
            print(f"FAIL: {s} is not what c_api/api_table.list and the headers give: run scripts/gen-api-table.py")
        return 1
    latest = entries[-1][1] if entries else 0
    print(f"gen-api-table: {len(entries)} functions, API version {latest}"
          f"{' (checked against ' + str(len(base)) + ' in the ABI baseline)' if check else ''}")
    return 0


INCLUDE_DIR = ""
if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
