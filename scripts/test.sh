#!/usr/bin/env bash
# Builds Graft and runs every test: the Release build's full suite (C API, headers, exported
# symbols, install with pkg-config and find_package, and the Python, Java, Go and Ruby bindings'
# own test suites), then the C/C++ tests again in a clang
# Debug build with AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer, which
# also builds the libFuzzer targets (tests/fuzz) and fuzzes each parser for a bounded time (label
# "fuzz"), and the tests of the concurrent parts (label "concurrent") under ThreadSanitizer.
# Installs the Debian packages it needs first. Run from anywhere.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

bash scripts/install-deps.sh

jobs=$(nproc)
launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

echo "== Release build and tests"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGRAFT_WERROR=ON -DGRAFT_REQUIRE_BINDINGS=ON "${launcher[@]}"
cmake --build build -j "$jobs"
ctest --test-dir build -j "$jobs" --output-on-failure

echo "== Debug + AddressSanitizer + UndefinedBehaviorSanitizer build (clang, with libFuzzer coverage) and tests"
# One sanitizer build serves both the test suite and the fuzz target (libFuzzer needs clang):
# the whole suite runs under ASan (with LeakSanitizer) + UBSan, with bounded fuzz runs.
# Line tables are all the sanitizers' stack traces need, and compile much faster than full -g.
CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=Debug -DGRAFT_SANITIZE=address,undefined -DGRAFT_FUZZ=ON \
  "-DCMAKE_C_FLAGS_DEBUG=-gline-tables-only" "-DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only" \
  -DGRAFT_PACKAGING_TESTS=OFF -DGRAFT_BUILD_BENCH=OFF -DGRAFT_BUILD_EXAMPLES=OFF \
  -DGRAFT_BUILD_BINDINGS=ON -DGRAFT_BINDINGS_LANGUAGES=python \
  -DGRAFT_WERROR=ON "${launcher[@]}"
cmake --build build-asan -j "$jobs"
ctest --test-dir build-asan -j "$jobs" --output-on-failure

echo "== ThreadSanitizer build of the concurrent tests"
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGRAFT_SANITIZE=thread \
  "-DCMAKE_C_FLAGS_DEBUG=-g1" "-DCMAKE_CXX_FLAGS_DEBUG=-g1" \
  -DGRAFT_PACKAGING_TESTS=OFF -DGRAFT_BUILD_BENCH=OFF -DGRAFT_BUILD_EXAMPLES=OFF -DGRAFT_BUILD_BINDINGS=OFF \
  -DGRAFT_WERROR=ON "${launcher[@]}"
cmake --build build-tsan -j "$jobs" --target graft_concurrent_tests
ctest --test-dir build-tsan -j "$jobs" -L concurrent --output-on-failure
