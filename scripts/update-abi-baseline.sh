#!/usr/bin/env bash
# Regenerates the ABI baseline abi/libgraft.abi from a build's libgraft (default: build/):
# after a deliberate ABI change, that is a SONAME bump (GRAFT_SOVERSION in graft/version.h)
# or an addition to the ABI. Builds the library first. Needs abigail-tools.
#   scripts/update-abi-baseline.sh [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"

if ! command -v abidw > /dev/null; then
  echo "update-abi-baseline: abidw not found: install abigail-tools (scripts/install-deps.sh)" >&2
  exit 1
fi
if ! grep -q '^GRAFT_ABI_CHECK:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "update-abi-baseline: $build is not configured with GRAFT_ABI_CHECK=ON (the default" >&2
  echo "outside sanitizer builds), so the C API has no debug info to read the ABI from" >&2
  exit 1
fi

cmake --build "$build" --target graft
# libgraft.so links to the library just built (older libgraft.so.N may lie beside it).
lib=$(readlink -f "$build/c_api/libgraft.so" || true)
if [ ! -f "$lib" ]; then
  echo "update-abi-baseline: no $build/c_api/libgraft.so" >&2
  exit 1
fi
mkdir -p "$root/abi"
"$root/tests/abi/abidw.sh" "$lib" "$root/c_api/include/graft" "$root/abi/libgraft.abi"
soname=$(sed -n "s/.*<abi-corpus [^>]*soname='\([^']*\)'.*/\1/p" "$root/abi/libgraft.abi" | head -1)
functions=$(grep -c '<elf-symbol .*type=.func-type' "$root/abi/libgraft.abi" || true)
echo "update-abi-baseline: wrote abi/libgraft.abi ($soname, $functions functions); commit it"
