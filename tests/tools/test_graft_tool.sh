#!/usr/bin/env bash
# Tests the `graft` command-line tool: help and version, `inspect` (text and JSON), `dot` and
# `run` on the conformance graphs, `devices` (with GRAFT_EXPECT_OPENCL=1 in the environment an
# OpenCL device must be listed), and the error cases (one line on stderr, non-zero exit status).
#
#   test_graft_tool.sh GRAFT_BINARY [CONFORMANCE_DIR]
#
# Without CONFORMANCE_DIR (or when it does not exist) the checks that need the conformance
# graphs are skipped and the others run.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 GRAFT_BINARY [CONFORMANCE_DIR]" >&2
  exit 2
fi
graft="$1"
conformance="${2:-}"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok: $1"; }
fail() {
  failed=$((failed + 1))
  echo "FAIL: $1"
  if [ -s "$work/err" ]; then sed 's/^/  stderr: /' "$work/err"; fi
}

# Runs graft with the arguments: stdout in $work/out, stderr in $work/err, status in $rc.
rc=0
run_graft() {
  set +e
  "$graft" "$@" > "$work/out" 2> "$work/err"
  rc=$?
  set -e
}
# As run_graft, with standard input from a file (first argument).
run_graft_stdin() {
  local input="$1"
  shift
  set +e
  "$graft" "$@" < "$input" > "$work/out" 2> "$work/err"
  rc=$?
  set -e
}

# check DESCRIPTION COMMAND...: one check that passes when COMMAND succeeds.
check() {
  local what="$1"
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

succeeded() { [ "$rc" -eq 0 ] && [ ! -s "$work/err" ]; }
# The output has this exact line.
has_line() { grep -qxF -- "$1" "$work/out"; }
# The output contains this text.
has_text() { grep -qF -- "$1" "$work/out"; }
# Failed with status $1 (or any non-zero status for "nonzero") and exactly one line on stderr
# that matches the extended regular expression $2.
failed_with() {
  local status="$1" pattern="$2"
  if [ "$status" = nonzero ]; then [ "$rc" -ne 0 ] || return 1; else [ "$rc" -eq "$status" ] || return 1; fi
  [ "$(wc -l < "$work/err")" -eq 1 ] || return 1
  [ "$(wc -c < "$work/err")" -gt 1 ] || return 1
  grep -qE -- "$pattern" "$work/err"
}
# JSON checks: the output parses with json.tool, and a Python expression over it (`doc`) holds.
json_valid() { python3 -m json.tool "$work/out" > /dev/null; }
json_holds() { python3 -c "import json, sys; doc = json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$work/out"; }

# ---- Help and version ---------------------------------------------------------------------

version_h="$here/../../c_api/include/graft/version.h"
if [ -f "$version_h" ]; then
  expect_version="$(sed -n 's/^#define GRAFT_VERSION_STRING "\(.*\)"$/\1/p' "$version_h")"
else
  expect_version=""
fi
run_graft --version
if [ -n "$expect_version" ]; then
  check "--version prints 'graft $expect_version'" eval 'succeeded && [ "$(cat "$work/out")" = "graft $expect_version" ]'
else
  check "--version prints a version" eval 'succeeded && grep -qxE "graft [0-9]+\.[0-9]+\.[0-9]+" "$work/out"'
fi

run_synopsis="graft run GRAPH.pb --feed NAME=VALUE ... --fetch TENSOR[=OUT.npy] ... [--target OP ...] [--grad-y Y[=VALUE] ... --grad-x X[=OUT.npy] ...]"
for form in --help -h help; do
  run_graft "$form"
  check "'graft $form' lists every command" eval 'succeeded && has_text "Usage: graft COMMAND" &&
    has_line "  graft inspect GRAPH.pb|SAVED_MODEL_DIR [--tag TAG ...] [--json]" && has_line "  graft dot GRAPH.pb" &&
    has_line "  $run_synopsis" && has_text "graft help [COMMAND]" && has_text "--version"'
done
for cmd in inspect dot run; do
  case "$cmd" in
    inspect) usage="Usage: graft inspect GRAPH.pb|SAVED_MODEL_DIR [--tag TAG ...] [--json]" ;;
    dot) usage="Usage: graft dot GRAPH.pb" ;;
    run) usage="Usage: $run_synopsis" ;;
  esac
  run_graft "$cmd" --help
  check "'graft $cmd --help' shows its usage" eval 'succeeded && has_line "$usage"'
  run_graft help "$cmd"
  check "'graft help $cmd' shows its usage" eval 'succeeded && has_line "$usage"'
done
run_graft inspect --help
check "'graft inspect --help' documents --json" eval 'succeeded && has_text "--json"'
run_graft run --help
check "'graft run --help' documents --feed, --fetch and --target" eval \
  'succeeded && has_text "--feed NAME=VALUE" && has_text "--fetch TENSOR[=OUT.npy]" && has_text "--target OP"'

# ---- Usage errors (status 2, one line) ----------------------------------------------------

run_graft
check "no command: status 2, one line" failed_with 2 "^graft: missing a command .*--help"
run_graft frobnicate
check "unknown command: status 2, one line" failed_with 2 "^graft: unknown command 'frobnicate'"
run_graft --frobnicate
check "unknown option: status 2, one line" failed_with 2 "^graft: unknown option '--frobnicate'"
run_graft help frobnicate
check "help for an unknown command: status 2, one line" failed_with 2 "unknown command 'frobnicate'"
run_graft inspect
check "inspect without GRAPH.pb: status 2, one line" failed_with 2 "^graft inspect: missing the GRAPH\.pb argument"
run_graft dot
check "dot without GRAPH.pb: status 2, one line" failed_with 2 "^graft dot: missing the GRAPH\.pb argument"
run_graft inspect --yaml x.pb
check "inspect with an unknown option: status 2, one line" failed_with 2 "^graft inspect: unknown option '--yaml'"
run_graft inspect a.pb b.pb
check "inspect with two graphs: status 2, one line" failed_with 2 "^graft inspect: unexpected argument 'b\.pb'"
run_graft run
check "run without GRAPH.pb: status 2, one line" failed_with 2 "^graft run: missing the GRAPH\.pb argument .*--help"
run_graft run model.pb
check "run without --fetch or --target: status 2, one line" failed_with 2 "^graft run: nothing to run: .*--help"
run_graft run model.pb --feed x --fetch z
check "run --feed without '=': status 2, one line" failed_with 2 "^graft run: --feed 'x' is not NAME=VALUE .*--help"
run_graft run model.pb --fetch
check "run --fetch without a value: status 2, one line" failed_with 2 "^graft run: option '--fetch' needs "
run_graft run model.pb --fetch =out.npy
check "run --fetch without a tensor name: status 2, one line" failed_with 2 "^graft run: --fetch '=out\.npy' has no tensor name"
run_graft run model.pb --fetch z --frobnicate
check "run with an unknown option: status 2, one line" failed_with 2 "^graft run: unknown option '--frobnicate'"
run_graft run a.pb b.pb --fetch z
check "run with two graphs: status 2, one line" failed_with 2 "^graft run: unexpected argument 'b\.pb'"

# ---- Errors loading a graph (status 1, one line) ------------------------------------------

run_graft inspect "$work/missing.pb"
check "inspect a missing file: non-zero, one line" \
  failed_with nonzero "^graft: cannot read '.*missing\.pb': No such file or directory$"
run_graft run "$work/missing.pb" --fetch z
check "run a missing file: non-zero, one line" \
  failed_with nonzero "^graft: cannot read '.*missing\.pb': No such file or directory$"
run_graft dot "$work/missing.pb"
check "dot a missing file: non-zero, one line" \
  failed_with nonzero "^graft: cannot read '.*missing\.pb': No such file or directory$"
run_graft inspect "$work"
check "inspect a directory that is no SavedModel: non-zero, one line" \
  failed_with nonzero "^graft: cannot read the SavedModel '.*': .*saved_model\.pb"
# Ten bytes that cannot be a GraphDef: field 1 (node) announces 127 bytes and 8 follow.
printf '\x0a\x7fgarbage!' > "$work/corrupt.pb"
run_graft inspect "$work/corrupt.pb"
check "inspect a corrupt file: non-zero, one line naming the import" \
  failed_with nonzero "^graft: cannot load '.*corrupt\.pb': graft_graph_import_graph_def: "
run_graft inspect --json "$work/corrupt.pb"
check "inspect --json a corrupt file: non-zero, one line" failed_with nonzero "^graft: cannot load "
run_graft dot "$work/corrupt.pb"
check "dot a corrupt file: non-zero, one line" failed_with nonzero "^graft: cannot load "
if [ -w /dev/full ]; then
  set +e
  "$graft" --help > /dev/full 2> "$work/err"
  rc=$?
  set -e
  check "output that cannot be written: non-zero, one line" failed_with nonzero "^graft: cannot write the output: "
fi

# ---- The empty graph, from standard input -------------------------------------------------

: > "$work/empty.pb"
run_graft_stdin "$work/empty.pb" inspect -
check "inspect - reads standard input (an empty GraphDef has no ops)" eval \
  'succeeded && has_line "ops: 0" && has_line "functions: 0"'
run_graft_stdin "$work/empty.pb" inspect --json -
check "inspect --json of an empty GraphDef is valid JSON" eval \
  'succeeded && json_valid && json_holds "doc[\"ops\"] == [] and doc[\"functions\"] == [] and doc[\"versions\"][\"producer\"] == 0"'
run_graft_stdin "$work/empty.pb" dot -
check "dot of an empty GraphDef is an empty digraph" eval 'succeeded && has_line "digraph graft {" && has_line "}"'

# ---- Devices --------------------------------------------------------------------------------
run_graft devices
check "devices: a table with the CPU first" eval 'succeeded &&
  head -n 1 "$work/out" | grep -qE "^DEVICE +TYPE +MODEL +MEMORY +COMPUTE UNITS$" &&
  sed -n 2p "$work/out" | grep -qE "^/device:CPU:0 +CPU +.+ +[0-9.]+ GiB +[0-9]+$"'
run_graft devices --json
check "devices --json: the CPU first, described" eval 'succeeded && json_valid && json_holds "
  doc[\"devices\"][0][\"name\"] == \"/job:localhost/replica:0/task:0/device:CPU:0\" and
  doc[\"devices\"][0][\"type\"] == \"CPU\" and doc[\"devices\"][0][\"model\"] != \"\" and
  doc[\"devices\"][0][\"memory_bytes\"] > 0 and doc[\"devices\"][0][\"compute_units\"] >= 1"'
check "devices --json: every other device is an OpenCL one with its fields filled" json_holds '
  all(d["type"] in ("GPU", "OPENCL") and d["model"] and d["driver"].startswith("OpenCL ") and d["memory_bytes"] > 0 and
      d["compute_units"] >= 1 and d["name"].startswith("/job:localhost/replica:0/task:0/device:" + d["type"] + ":")
      for d in doc["devices"][1:])'
# Built with the OpenCL device and given an ICD (PoCL in CI): it is listed, unless hidden.
if [ "${GRAFT_EXPECT_OPENCL:-0}" = 1 ]; then
  check "devices --json lists an OpenCL device" json_holds 'any(d["type"] in ("GPU", "OPENCL") for d in doc["devices"])'
fi
set +e
GRAFT_OPENCL=0 "$graft" devices --json > "$work/out" 2> "$work/err"
rc=$?
set -e
check "GRAFT_OPENCL=0 graft devices lists the CPU alone" eval 'succeeded && json_holds "len(doc[\"devices\"]) == 1"'
run_graft devices --help
check "'graft devices --help' documents --json and GRAFT_OPENCL" eval 'succeeded && has_text "--json" && has_text "GRAFT_OPENCL=0"'
run_graft devices --yaml
check "devices with an unknown option: status 2, one line" failed_with 2 "^graft devices: unknown option '--yaml'"
run_graft devices gpu
check "devices with an argument: status 2, one line" failed_with 2 "^graft devices: unexpected argument 'gpu'"

# ---- The conformance graphs ---------------------------------------------------------------

graphs="$conformance/graphs"
if [ -z "$conformance" ] || [ ! -d "$graphs" ]; then
  echo "skipped: the conformance checks (no conformance graphs at '${conformance}')"
else
  have_dot=1
  if ! command -v dot > /dev/null; then
    have_dot=0
    echo "skipped: rendering with Graphviz (no 'dot' command; scripts/install-deps.sh installs it)"
  fi
  # render NAME: the DOT output renders to a PNG.
  render() { dot -Tpng -o "$work/$1.png" "$work/out" && [ -s "$work/$1.png" ]; }

  # addition_int32.pb: Placeholder x, y (int32 scalars) -> AddV2 z.
  run_graft inspect "$graphs/addition_int32.pb"
  check "inspect addition_int32.pb: 3 ops" eval 'succeeded && has_line "ops: 3"'
  check "inspect addition_int32.pb: Placeholder x, y -> AddV2 z, int32 scalars" eval \
    'has_line "  x = Placeholder() -> int32 ()" && has_line "  y = Placeholder() -> int32 ()" &&
     has_line "  z = AddV2(x:0, y:0) -> int32 ()" && has_line "functions: 0"'
  run_graft inspect --json "$graphs/addition_int32.pb"
  check "inspect --json addition_int32.pb: valid JSON" eval 'succeeded && json_valid'
  check "inspect --json addition_int32.pb: 3 ops, as expected" json_holds \
    'len(doc["ops"]) == 3 and doc["functions"] == [] and
     [(o["name"], o["type"]) for o in doc["ops"]] == [("x", "Placeholder"), ("y", "Placeholder"), ("z", "AddV2")] and
     doc["ops"][2]["inputs"] == ["x:0", "y:0"] and doc["ops"][2]["control_inputs"] == [] and
     all(o["device"] == "" and o["outputs"] == [{"dtype": "int32", "shape": []}] for o in doc["ops"])'
  run_graft dot "$graphs/addition_int32.pb"
  check "dot addition_int32.pb: nodes and labelled edges" eval 'succeeded && has_line "digraph graft {" &&
    has_line "  \"z\" [label=\"AddV2\\nz\"];" && has_line "  \"x\" -> \"z\" [label=\"int32 ()\"];" &&
    has_line "  \"y\" -> \"z\" [label=\"int32 ()\"];"'
  check "dot addition_int32.pb: no control edges" eval '! has_text "style=dashed"'
  if [ "$have_dot" = 1 ]; then check "dot addition_int32.pb renders with Graphviz" render addition; fi

  # multiplication_float.pb: Placeholder a, b (float) -> Mul c.
  run_graft inspect "$graphs/multiplication_float.pb"
  check "inspect multiplication_float.pb: Placeholder a, b -> Mul c, float32" eval 'succeeded && has_line "ops: 3" &&
    has_line "  a = Placeholder() -> float32 ()" && has_line "  b = Placeholder() -> float32 ()" &&
    has_line "  c = Mul(a:0, b:0) -> float32 ()"'
  run_graft inspect --json "$graphs/multiplication_float.pb"
  check "inspect --json multiplication_float.pb: valid JSON, 3 ops" eval 'succeeded && json_valid &&
    json_holds "len(doc[\"ops\"]) == 3 and doc[\"ops\"][2][\"type\"] == \"Mul\" and
                doc[\"ops\"][2][\"outputs\"][0][\"dtype\"] == \"float32\""'
  run_graft dot "$graphs/multiplication_float.pb"
  check "dot multiplication_float.pb" eval 'succeeded && has_line "  \"a\" -> \"c\" [label=\"float32 ()\"];"'
  if [ "$have_dot" = 1 ]; then check "dot multiplication_float.pb renders with Graphviz" render multiplication; fi

  # ---- graft run on the conformance graphs ----

  add="$graphs/addition_int32.pb"
  mul="$graphs/multiplication_float.pb"
  run_graft run "$add" --feed x=3 --feed y=4 --fetch z
  check "run addition_int32.pb: 3 + 4 prints 7" eval 'succeeded && [ "$(cat "$work/out")" = "z = array(7, dtype=int32)" ]'
  run_graft run "$mul" --feed a=2.5 --feed b=4 --fetch c
  check "run multiplication_float.pb: 2.5 * 4 prints 10." eval \
    'succeeded && [ "$(cat "$work/out")" = "c = array(10., dtype=float32)" ]'
  run_graft run "$mul" --feed=a=-1.25 --feed=b=0.5 --fetch=c --fetch a:0
  check "run with --opt=VALUE forms, fetching a fed tensor too" eval \
    'succeeded && has_line "c = array(-0.625, dtype=float32)" && has_line "a:0 = array(-1.25, dtype=float32)"'
  run_graft run "$add" --feed x=3 --feed y=4 --target z
  check "run --target only: runs, prints nothing" eval 'succeeded && [ ! -s "$work/out" ]'

  # Gradients: c = a * b, so dc/da = b (times the given gradient), and int32 tensors give none.
  run_graft run "$mul" --feed a=2.5 --feed b=4 --grad-y c --grad-x a --grad-x b
  check "run --grad-y c --grad-x a --grad-x b prints dc/da = b and dc/db = a" eval \
    'succeeded && has_line "d/da = array(4., dtype=float32)" && has_line "d/db = array(2.5, dtype=float32)"'
  run_graft run "$mul" --feed a=2.5 --feed b=4 --grad-y c=2 --grad-x a
  check "run --grad-y c=2 scales the gradient" eval 'succeeded && has_line "d/da = array(8., dtype=float32)"'
  run_graft run "$add" --feed x=3 --feed y=4 --grad-y z --grad-x x
  check "run --grad-x on an int32 path prints None" eval 'succeeded && has_line "d/dx = None"'
  run_graft run "$mul" --feed a=1 --feed b=1 --grad-x a
  check "run --grad-x without --grad-y is a usage error" failed_with 2 "--grad-y"

  # --fetch TENSOR=OUT.npy writes NumPy's .npy format 1.0 (header padded to 64 bytes).
  run_graft run "$add" --feed x=3 --feed y=4 --fetch "z=$work/z.npy"
  check "run --fetch z=OUT.npy writes nothing to stdout" eval 'succeeded && [ ! -s "$work/out" ] && [ -s "$work/z.npy" ]'
  check "run --fetch z=OUT.npy writes a valid .npy (magic, version, header, int32 7)" python3 -c '
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x93NUMPY\x01\x00", data[:8]
(hlen,) = struct.unpack("<H", data[8:10])
header = data[10:10 + hlen].decode("latin-1")
assert (10 + hlen) % 64 == 0 and header.endswith("\n"), header
assert header.startswith("{\x27descr\x27: \x27<i4\x27, \x27fortran_order\x27: False, \x27shape\x27: (), }"), header
assert struct.unpack("<i", data[10 + hlen:]) == (7,)
' "$work/z.npy"
  run_graft run "$add" --feed "x=@$work/z.npy" --feed "y=@$work/z.npy" --fetch z
  check "run --feed NAME=@FILE.npy reads the .npy it wrote: 7 + 7" eval 'succeeded && has_line "z = array(14, dtype=int32)"'

  # Errors: one line, status 1 for what the graph or a file says, 2 for a bad command line.
  run_graft run "$add" --feed x=3 --feed y=4 --fetch q
  check "run --fetch of an unknown tensor: status 1, one line naming it" \
    failed_with 1 "^graft: --fetch q: graft_graph_tensor_by_name: .*'q'"
  run_graft run "$add" --feed q=3 --feed y=4 --fetch z
  check "run --feed of an unknown tensor: status 1, one line naming it" \
    failed_with 1 "^graft: --feed q: graft_graph_tensor_by_name: .*'q'"
  run_graft run "$add" --feed x=3 --feed y=4 --fetch "z:abc"
  check "run --fetch of a malformed tensor name: status 2, one line" \
    failed_with 2 "^graft run: bad tensor name for --fetch: graft_graph_tensor_by_name: .*'z:abc'.*--help"
  run_graft run "$add" --feed x=3 --feed y=4 --target nope
  check "run --target of an unknown op: status 1, one line" failed_with 1 "^graft: --target nope: .*'nope'"
  run_graft run "$add" --feed 'x=[1,' --feed y=4 --fetch z
  check "run with a bad literal: status 2, one line" \
    failed_with 2 "^graft run: bad value for --feed x: the value ends too soon: missing '\]' .*--help"
  run_graft run "$add" --feed x=hello --feed y=4 --fetch z
  check "run with an unquoted word for a literal: status 2, one line" \
    failed_with 2 "^graft run: bad value for --feed x: 'hello' is not a number"
  run_graft run "$add" --feed x=1.5 --feed y=4 --fetch z
  check "run with 1.5 for an int32 placeholder: status 2, one line" \
    failed_with 2 "^graft run: bad value for --feed x: '1\.5' does not fit int32"
  run_graft run "$add" --feed x=300:uint8 --feed y=4 --fetch z
  check "run with 300:uint8: status 2, one line" failed_with 2 "'300' does not fit uint8"
  run_graft run "$add" --feed x=3:floot --feed y=4 --fetch z
  check "run with an unknown :dtype suffix: status 2, one line" failed_with 2 "unknown dtype 'floot'"
  run_graft run "$add" --feed x=3:int64 --feed y=4 --fetch z
  check "run with a :dtype suffix the placeholder does not take: status 1, the library's message" \
    failed_with 1 "^graft: cannot run '.*addition_int32\.pb': graft_session_run: .*int64.*int32"
  run_graft run "$add" --feed x=3 --fetch z
  check "run without feeding a needed placeholder: status 1, the library's message naming it" \
    failed_with 1 "^graft: cannot run '.*addition_int32\.pb': graft_session_run: .*placeholder.*'y"
  run_graft run "$add" --feed 'x=[1, 2]' --feed y=4 --fetch z
  check "run feeding a shape the placeholder does not take: status 1, one line" \
    failed_with 1 "^graft: cannot run .*shape"
  run_graft run "$add" --feed "x=@$work/missing.npy" --feed y=4 --fetch z
  check "run --feed from a missing .npy: status 1, one line naming the file" \
    failed_with 1 "^graft: --feed x: cannot read '.*missing\.npy': No such file or directory$"
  head -c 100 "$work/z.npy" > "$work/truncated.npy"
  run_graft run "$add" --feed "x=@$work/truncated.npy" --feed y=4 --fetch z
  check "run --feed from a truncated .npy: status 1, one line naming the file" \
    failed_with 1 "^graft: --feed x: '.*truncated\.npy' is truncated"
  printf 'NUMPY?not a numpy file' > "$work/corrupt.npy"
  run_graft run "$add" --feed "x=@$work/corrupt.npy" --feed y=4 --fetch z
  check "run --feed from a file that is no .npy: status 1, one line naming the file" \
    failed_with 1 "^graft: --feed x: '.*corrupt\.npy' is not a \.npy file"
  printf '\x93NUMPY\x01\x00\x10\x00{"descr": <i4,} ' > "$work/badheader.npy"
  run_graft run "$add" --feed "x=@$work/badheader.npy" --feed y=4 --fetch z
  check "run --feed from a .npy with a malformed header: status 1, one line naming the file" \
    failed_with 1 "^graft: --feed x: '.*badheader\.npy' has a malformed \.npy header"
  # Zero-width strings (|S0, >U0): no data bytes at all, so no pointer into them (NULL + 0 was
  # undefined); read as string tensors, which the int32 placeholder then refuses.
  python3 - "$work" <<'PY'
import struct, sys
def npy(path, descr, shape):
    h = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
    open(path, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode("latin-1"))
npy(sys.argv[1] + "/s0.npy", "|S0", "(2,)")
npy(sys.argv[1] + "/u0.npy", ">U0", "(3, 0)")
npy(sys.argv[1] + "/s0_huge.npy", "|S0", "(2305843009213693952, 4)")
PY
  run_graft run "$add" --feed "x=@$work/s0.npy" --feed y=4 --fetch z
  check "run --feed from a |S0 .npy: read as strings, refused by the int32 placeholder" \
    failed_with 1 "^graft: cannot run .*'x:0' has dtype string, but the tensor is int32"
  run_graft run "$add" --feed "x=@$work/u0.npy" --feed y=4 --fetch z
  check "run --feed from a >U0 .npy of shape (3, 0): read as strings" failed_with 1 "'x:0' has dtype string"
  run_graft run "$add" --feed "x=@$work/s0_huge.npy" --feed y=4 --fetch z
  check "run --feed from a |S0 .npy of 2^63 elements: status 1, one line (no overflowing allocation)" \
    failed_with 1 "^graft: --feed x: cannot read '.*s0_huge\.npy': 9223372036854775808 strings are too many"
  run_graft run "$add" --feed x=3 --feed y=4 --fetch "z=$work/no/such/dir/z.npy"
  check "run --fetch to a file that cannot be written: status 1, one line" \
    failed_with 1 "^graft: --fetch z: cannot write '.*z\.npy': "

  # regression_tf1_train.pb: a TF1 training graph with control inputs (init, train, tuples).
  run_graft inspect "$graphs/regression_tf1_train.pb"
  check "inspect regression_tf1_train.pb" eval 'succeeded && grep -qE "^ops: [0-9]+$" "$work/out"'
  text_ops="$(sed -n 's/^ops: //p' "$work/out")"
  control_inputs="$( (grep -o '\^' "$work/out" || true) | wc -l)"
  check "inspect regression_tf1_train.pb: one line per op" \
    eval '[ "$(grep -c "^  [^ ]* = " "$work/out")" -eq "$text_ops" ]'
  check "inspect regression_tf1_train.pb: control inputs shown as ^name" eval \
    '[ "$control_inputs" -gt 0 ] && has_line "  init = NoOp(^w/Assign, ^b/Assign)" &&
     has_line "  w = Variable() -> float32_ref (1,)"'
  run_graft inspect --json "$graphs/regression_tf1_train.pb"
  check "inspect --json regression_tf1_train.pb: valid JSON" eval 'succeeded && json_valid'
  check "inspect --json regression_tf1_train.pb: same ops and control inputs as the text" json_holds \
    "len(doc['ops']) == $text_ops and sum(len(o['control_inputs']) for o in doc['ops']) == $control_inputs and
     all(s is None or isinstance(s, list) for o in doc['ops'] for s in [x['shape'] for x in o['outputs']])"
  run_graft dot "$graphs/regression_tf1_train.pb"
  check "dot regression_tf1_train.pb: one dashed edge per control input" eval \
    'succeeded && [ "$(grep -c "style=dashed" "$work/out")" -eq "$control_inputs" ] &&
     has_line "  \"w/Assign\" -> \"init\" [style=dashed];"'
  if [ "$have_dot" = 1 ]; then check "dot regression_tf1_train.pb renders with Graphviz" render regression; fi
fi

# ---- SavedModels ----------------------------------------------------------------------------
models="$conformance/savedmodels"
if [ -n "$conformance" ] && [ -d "$models/half_plus_two_tf2" ]; then
  run_graft inspect "$models/half_plus_two_tf2"
  check "inspect a SavedModel lists tags and signatures" eval 'succeeded && has_line "  serve" &&
    has_line "  serving_default (tensorflow/serving/predict)" && has_line "      x: float32 (1,) <- serving_default_x:0"'
  run_graft inspect "$models/half_plus_two_tf2" --json
  check "inspect --json a SavedModel" eval 'succeeded && has_text "\"tag_sets\": [[\"serve\"]]"'
  run_graft run "$models/half_plus_two_tf2" --input 'x=[1.5]'
  check "run a SavedModel's serving_default" eval 'succeeded && has_line "y = array([2.75], dtype=float32)"'
  run_graft run "$models/counter_tf1" --signature incr_counter --then --signature incr_counter_by --input delta=2.5 --then --signature get_counter
  check "run --then keeps the variables of a SavedModel" eval 'succeeded && has_line "output = array(3.5, dtype=float32)"'
  run_graft run "$models/half_plus_two_tf2" --signature nope
  check "run an unknown signature: non-zero, one line" failed_with nonzero "^graft: --signature nope: .*no signature 'nope'"
  run_graft run "$models/half_plus_two_tf2" --tag gpu
  check "run with tags that are not there: non-zero, one line" failed_with nonzero "^graft: cannot load the SavedModel .*\{gpu\}"
  run_graft run "$models/half_plus_two_tf2" --fetch y
  check "--fetch on a SavedModel is a usage error" failed_with 2 "--input and --output"
fi

# ---- --timeout: a loop that would run for hours stops with an error naming the op -------------
loop_tf1="$here/../data/while_tf1.pb"
# i0 starts the loop counter: from -2^31 + 1 the loop runs about 2^31 iterations.
run_graft run "$loop_tf1" --feed 'x=[[1,2,3],[4,5,6]]' --feed i0=-2147483647 --fetch loop/Exit_1 --timeout 200
check "run --timeout stops a TensorFlow 1 loop: non-zero, one line naming the op" failed_with 1 \
  "^graft: cannot run .*: the run passed its deadline \(before op 'loop/[A-Za-z_0-9/]+' of type [A-Za-z0-9]+ ran\)"
run_graft run "$loop_tf1" --feed 'x=[[1,2,3],[4,5,6]]' --fetch loop/Exit --timeout 60000
check "run --timeout that is not reached changes nothing" eval 'succeeded && has_line "loop/Exit = array(3, dtype=int32)"'
run_graft run "$loop_tf1" --fetch loop/Exit --timeout 0
check "run --timeout 0: status 2, one line" failed_with 2 "^graft run: option '--timeout' needs a number of milliseconds > 0"
run_graft run "$loop_tf1" --fetch loop/Exit --timeout soon
check "run --timeout soon: status 2, one line" failed_with 2 "^graft run: option '--timeout' needs a number"
# ---- --max-memory: a cap on the run's tensor memory ------------------------------------------
if [ -n "$conformance" ] && [ -f "$graphs/addition_int32.pb" ]; then
  run_graft run "$graphs/addition_int32.pb" --feed x=2 --feed y=3 --fetch z --max-memory 1M
  check "run under --max-memory 1M" eval 'succeeded && has_line "z = array(5, dtype=int32)"'
fi
if [ -n "$conformance" ] && [ -f "$conformance/ops/Fill/graph.pb" ]; then
  # A 16 GB tensor asked for by a feed of two numbers: refused, with the op, the bytes and the cap.
  run_graft run "$conformance/ops/Fill/graph.pb" --feed 'd=[65536, 65536]' --fetch out --max-memory 1G
  check "run over --max-memory: status 1, one line naming the op, the bytes and the cap" failed_with 1 \
    "Fill op 'Fill': allocating 17179869184 bytes would pass the process's memory cap of 1073741824 bytes"
  # The default cap (half the machine's memory) refuses it too, rather than letting it swap.
  run_graft run "$conformance/ops/Fill/graph.pb" --feed 'd=[1048576, 1048576]' --fetch out
  check "run with the default cap: a 4 TB Fill fails with one line" failed_with 1 "Fill op 'Fill': .*memory cap"
fi
if [ -n "$conformance" ] && [ -f "$graphs/addition_int32.pb" ]; then
  run_graft run "$graphs/addition_int32.pb" --feed x=2 --feed y=3 --fetch z --max-memory 0
  check "run --max-memory 0 (no cap)" eval 'succeeded && has_line "z = array(5, dtype=int32)"'
fi
run_graft run "$loop_tf1" --fetch loop/Exit --max-memory 12Q
check "run --max-memory 12Q: status 2, one line" failed_with 2 "^graft run: option '--max-memory' needs a size"

loop_v2="$conformance/gradients/while_power_v2"
if [ -n "$conformance" ] && [ -d "$loop_v2" ]; then
  run_graft run "$loop_v2/graph.pb" --feed "a=@$loop_v2/in_a.npy" --feed Const=-2147483647 \
    --feed while/maximum_iterations=2147483647 --fetch out --timeout 200
  check "run --timeout stops a functional While: non-zero, one line" failed_with 1 \
    "^graft: cannot run .*StatelessWhile op 'while': iteration [0-9]+: .*passed its deadline"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
