#!/usr/bin/env bash
# Writes the ABI of a libgraft as abigail XML: its exported functions and the types of the
# public headers, read from the C API's debug info (types defined elsewhere are dropped, so
# the library's C++ internals are no part of it). abidw.sh LIBRARY HEADERS_DIR OUT_FILE.
# The baseline abi/libgraft.abi and the ABI check both come from here, so they always agree
# on the options: no absolute paths or source locations (the XML is the same in any checkout)
# and hash type ids (a change touches only the lines of the types it changes).
set -euo pipefail
lib="$1"
headers="$2"
out="$3"
abidw --headers-dir "$headers" --drop-private-types --exported-interfaces-only --drop-undefined-syms \
  --no-corpus-path --no-comp-dir-path --no-show-locs --no-elf-needed --type-id-style hash \
  --out-file "$out.tmp" "$lib"
# Translation units are named by their path from the build directory: keep c_api/src/NAME.cc.
sed "s#path='[^']*/\(c_api/src/[^'/]*\)'#path='\1'#" "$out.tmp" > "$out"
rm -f "$out.tmp"
