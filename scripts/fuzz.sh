#!/usr/bin/env bash
# Fuzzes one target of tests/fuzz for a while, longer than the bounded run of the test suite:
#   scripts/fuzz.sh NAME MINUTES [JOBS] [-- EXTRA LIBFUZZER FLAGS]
# NAME is one of import_graph_def, saved_model, checkpoint, parse_example, npy, literal,
# spec_strings. Builds the libFuzzer build (clang, AddressSanitizer + UndefinedBehaviorSanitizer,
# the same build-asan folder as scripts/test.sh) when needed, writes the seed corpus, then runs
# libFuzzer on JOBS processes (default 1) from a random seed for MINUTES minutes. What it finds
# is kept in build-asan/tests/fuzz/corpus-long/NAME (the next run goes on from there); crashes
# are written as build-asan/tests/fuzz/NAME-crash-* (leak-, timeout-, oom-): once understood and
# fixed, copy them into tests/fuzz/regressions/NAME, which every test run replays.
# Prints libFuzzer's final statistics (executions, coverage) at the end.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

if [ $# -lt 2 ]; then
  sed -n '2,12p' "$0" >&2
  exit 2
fi
name=$1
minutes=$2
shift 2
jobs=1
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  jobs=$1
  shift
fi
[ "${1:-}" = "--" ] && shift

build=build-asan
if [ ! -f "$build/CMakeCache.txt" ]; then
  launcher=()
  command -v ccache > /dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=Debug -DGRAFT_SANITIZE=address,undefined -DGRAFT_FUZZ=ON \
    "-DCMAKE_C_FLAGS_DEBUG=-gline-tables-only" "-DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only" \
    -DGRAFT_PACKAGING_TESTS=OFF -DGRAFT_BUILD_BENCH=OFF -DGRAFT_BUILD_EXAMPLES=OFF \
    -DGRAFT_BUILD_BINDINGS=ON -DGRAFT_BINDINGS_LANGUAGES=python "${launcher[@]}"
fi
cmake --build "$build" --target "fuzz_$name" make_corpus

# Absolute paths: the targets that run graphs work in a temporary directory (fuzz_common.h).
dir="$root/$build/tests/fuzz"
conformance="$(cd "$root/.." && pwd)/shared/conformance"
"$dir/make_corpus" "$name" "$dir/corpus/$name" "$conformance" > /dev/null
mkdir -p "$dir/corpus-long/$name"
inputs=("$dir/corpus-long/$name" "$dir/corpus/$name")
[ -d "$root/tests/fuzz/regressions/$name" ] && inputs+=("$root/tests/fuzz/regressions/$name")

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
flags=(-max_total_time=$((minutes * 60)) -rss_limit_mb=2048 -max_len=1048576 -timeout=30 -print_final_stats=1
       -artifact_prefix="$dir/$name-")
if [ "$jobs" -gt 1 ]; then
  flags+=(-jobs="$jobs" -workers="$jobs")
fi
exec "$dir/fuzz_$name" "${flags[@]}" "$@" "${inputs[@]}"
