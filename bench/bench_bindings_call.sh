#!/usr/bin/env bash
# Per-call cost of a cached one-op function (x + x on a scalar) from each language, with C's
# graft_function_call as the baseline (bench_python_call.py measures both in one process) and
# each binding's floor (one call into libgraft that does nothing). Issue #23's goals: under
# 1.5 µs from Java and Go, under 2 µs from Python and Ruby.
#   bench/bench_bindings_call.sh [BUILD_DIR]      (default: build)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$src/build}" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1

py="$(PYTHONPATH="$build/bindings/python/site" python3 "$src/bench/bench_python_call.py")"
c_us="$(sed -n 's/^C: graft_function_call (baseline) *\([0-9.]*\).*/\1/p' <<< "$py")"
py_us="$(sed -n 's/^Python: f(x), 1 op, cached *\([0-9.]*\).*/\1/p' <<< "$py")"

ruby_out="$(ruby -I "$src/bindings/ruby/lib" -I "$build/bindings/ruby/ext" "$src/bench/bindings/bench_ruby_call.rb")"

javac -cp "$build/bindings/java/graft.jar" -d "$work" "$src/bench/bindings/BenchJavaCall.java"
java_out="$(java -Djava.library.path="$build/bindings/java" -cp "$build/bindings/java/graft.jar:$work" BenchJavaCall)"

# shellcheck source=../bindings/go/offline_env.sh
. "$src/bindings/go/offline_env.sh"
go_out="$(cd "$build/bindings/go/module" && graft_go_env "$build/bindings/go" \
  && PKG_CONFIG_PATH="$build/bindings/go/pkgconfig" CGO_CXXFLAGS="-I$src/bindings -O1" \
  go test -run '^$' -bench 'FunctionCall|Version' -benchtime 200000x -count 5 . 2>&1)"
go_best() { awk -v name="$1" '$1 ~ "^"name {v = $3 / 1000; if (best == "" || v < best) best = v} END {printf "%.3f", best}' <<< "$go_out"; }

value() { sed -n "s/^$1 $2 \\([0-9.]*\\)$/\\1/p"; }
row() { printf '| %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$(awk -v a="$2" -v c="$c_us" 'BEGIN {printf "%.2f", a / c}')" "$4"; }
echo "| language | cached 1-op function call, µs | binding floor, µs | vs C | goal |"
echo "| --- | ---: | ---: | ---: | ---: |"
row "C (graft_function_call)" "$c_us" "—" "—"
row "Python (graft.function)" "$py_us" "—" "< 2"
row "Java (Function.call)" "$(value java function_call_us <<< "$java_out")" "$(value java floor_us <<< "$java_out")" "< 1.5"
row "Go (Function.Call)" "$(go_best BenchmarkFunctionCall)" "$(go_best BenchmarkVersion)" "< 1.5"
row "Ruby (Graft::Function#call)" "$(value ruby function_call_us <<< "$ruby_out")" "$(value ruby floor_us <<< "$ruby_out")" "< 2"
