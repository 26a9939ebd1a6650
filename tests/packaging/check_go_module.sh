#!/usr/bin/env bash
# The Go module as a user builds it from a source checkout over an installed Graft: cmake
# --install into a temporary prefix, a copy of the checkout's bindings/ and C headers, `go
# generate` in bindings/go (SWIG's cgo package and the dtype table), then a module of the
# user's own (examples/go/main.go) requiring graft.dev/graft through a replace directive to
# that checkout, built with `go build` (the wrapper finding libgraft with pkg-config) and run.
set -euo pipefail
# shellcheck source=expect_output.sh
. "$(dirname "$0")/expect_output.sh"
build_dir="$1"
work="$2"
go="$3"
src="$(cd "$(dirname "$0")/../.." && pwd)"
command -v swig > /dev/null || { echo "FAIL: swig not found"; exit 1; }

# shellcheck source=install_prefix.sh
. "$(dirname "$0")/install_prefix.sh"

# shellcheck source=../../bindings/go/offline_env.sh
. "$src/bindings/go/offline_env.sh"
graft_go_env "$work"
export CGO_CXXFLAGS="-O1" # the wrapper at -O1 keeps the test's compile short

mkdir -p "$work/checkout/c_api"
cp -r "$src/bindings" "$work/checkout/bindings"
cp -r "$src/c_api/include" "$work/checkout/c_api/include"
rm -f "$work/checkout/bindings/go/dtype_table.go" "$work/checkout/bindings/go/internal/graft_swig/graft_"*
(cd "$work/checkout/bindings/go" && "$go" generate . > "$work/generate.log" 2>&1) \
  || { cat "$work/generate.log"; echo "FAIL: go generate"; exit 1; }
for f in dtype_table.go internal/graft_swig/graft_swig.go internal/graft_swig/graft_wrap.cxx; do
  [ -f "$work/checkout/bindings/go/$f" ] || { echo "FAIL: go generate made no $f"; exit 1; }
done
echo "ok: go generate"

graft_go_example_app "$work/app" "$work/checkout/bindings/go" "$src"
(cd "$work/app" && "$go" build -o app . > "$work/build.log" 2>&1 && "$go" vet . >> "$work/build.log" 2>&1) \
  || { cat "$work/build.log"; echo "FAIL: go build of a module requiring graft.dev/graft"; exit 1; }
echo "ok: go build"
cd "$work"
out="$(env -u LD_LIBRARY_PATH LD_LIBRARY_PATH="$libdir" "$work/app/app")"
echo "$out"
expect "the example's MatMul" "matmul .* = \[1 3\] \[41 52 63\]"
expect "the example's function" "poly(\[4 5\]) = \[20 30\] (traces: 2)"
echo "ok: go module over the installed Graft"
