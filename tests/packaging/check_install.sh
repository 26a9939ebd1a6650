#!/usr/bin/env bash
# Installs Graft into a temporary prefix and builds a small C program against it three ways:
# with pkg-config alone, with find_package(Graft) and the shared target, and with
# find_package(Graft) and the static target. Each program must run and print the version.
set -euo pipefail
build_dir="$1"
work="$2"
cc="$3"
here="$(cd "$(dirname "$0")" && pwd)"

rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix with space"
cmake --install "$build_dir" --prefix "$prefix" > "$work/install.log"

pcdir=$(dirname "$(find "$prefix" -name graft.pc | head -1)")
libdir=$(dirname "$(find "$prefix" -name 'libgraft.so*' | head -1)")
[ -f "$prefix/include/graft/graft.h" ] || { echo "FAIL: headers not installed"; exit 1; }
[ -f "$libdir/libgraft.a" ] || { echo "FAIL: static library not installed"; exit 1; }
ls "$libdir"/libgraft.so.[0-9]* > /dev/null || { echo "FAIL: versioned shared library not installed"; exit 1; }

expect=$(sed -n 's/#define GRAFT_VERSION_STRING "\(.*\)"/\1/p' "$prefix/include/graft/version.h")

# 1. pkg-config alone (the prefix has a space in it, so pkg-config's quoting is exercised too).
export PKG_CONFIG_PATH="$pcdir"
[ "$(pkg-config --modversion graft)" = "$expect" ] || { echo "FAIL: pkg-config --modversion"; exit 1; }
eval "$cc $here/consumer.c -o '$work/consumer_pc' $(pkg-config --cflags --libs graft)"
out=$(LD_LIBRARY_PATH="$libdir" "$work/consumer_pc")
[ "$out" = "graft $expect" ] || { echo "FAIL: pkg-config consumer printed '$out'"; exit 1; }
echo "ok: pkg-config build"

# 2 and 3. find_package(Graft), shared and static targets.
for target in graft graft_static; do
  cmake -S "$here/consumer" -B "$work/cmake_$target" -DCMAKE_PREFIX_PATH="$prefix" \
    -DGRAFT_TARGET="Graft::$target" -DCMAKE_C_COMPILER="$cc" > "$work/cmake_$target.log" 2>&1 \
    || { cat "$work/cmake_$target.log"; echo "FAIL: configure with find_package ($target)"; exit 1; }
  cmake --build "$work/cmake_$target" > "$work/build_$target.log" 2>&1 \
    || { cat "$work/build_$target.log"; echo "FAIL: build with find_package ($target)"; exit 1; }
  out=$("$work/cmake_$target/consumer")
  [ "$out" = "graft $expect" ] || { echo "FAIL: find_package consumer ($target) printed '$out'"; exit 1; }
  echo "ok: find_package build with Graft::$target"
done
# 4. An op library (examples/plugin) built against the installed Graft with find_package.
cmake -S "$here/../../examples/plugin" -B "$work/plugin" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
  > "$work/plugin.log" 2>&1 || { cat "$work/plugin.log"; echo "FAIL: configure examples/plugin"; exit 1; }
cmake --build "$work/plugin" > "$work/plugin_build.log" 2>&1 \
  || { cat "$work/plugin_build.log"; echo "FAIL: build examples/plugin"; exit 1; }
[ -f "$work/plugin/libgraft_example_ops.so" ] || { echo "FAIL: examples/plugin made no library"; exit 1; }
echo "ok: examples/plugin built with find_package"
# 5. Graft's MPI module (when this build made one) is installed beside libgraft, and a program
# linked against the installed libgraft finds it there (a job of one rank, without mpirun).
if ls "$build_dir"/c_api/libgraft_mpi.so.* > /dev/null 2>&1; then
  ls "$libdir"/libgraft_mpi.so.[0-9]* > /dev/null || { echo "FAIL: libgraft_mpi not installed beside libgraft"; exit 1; }
  cat > "$work/mpi_consumer.c" << 'EOF_C'
#include <stdio.h>
#include <graft/graft.h>
int main(void) {
  int size = 0;
  if (graft_distributed_size(&size) != GRAFT_OK || graft_distributed_finalize() != GRAFT_OK) {
    printf("%s\n", graft_error_last());
    return 1;
  }
  printf("ranks: %d\n", size);
  return 0;
}
EOF_C
  eval "$cc '$work/mpi_consumer.c' -o '$work/mpi_consumer' $(pkg-config --cflags --libs graft)"
  out=$(LD_LIBRARY_PATH="$libdir" "$work/mpi_consumer" 2>&1) || true
  [ "$out" = "ranks: 1" ] || { echo "FAIL: the installed libgraft did not load its MPI module: '$out'"; exit 1; }
  echo "ok: the installed libgraft loads libgraft_mpi from its directory"
fi
if ldd "$work/cmake_graft_static/consumer" | grep -q libgraft; then
  echo "FAIL: the static consumer still loads libgraft.so"
  exit 1
fi
echo "ok: install"
