#!/usr/bin/env bash
# Fails if libgraft exports any dynamic symbol not named graft_*, or if its SONAME is not
# libgraft.so.<SOVERSION>, or if any lacks the symbol version GRAFT_<SOVERSION>.
set -euo pipefail
lib="$1"
soversion="$2"

soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != "libgraft.so.$soversion" ]; then
  echo "FAIL: SONAME is '$soname', expected 'libgraft.so.$soversion'"
  exit 1
fi

# Each exported symbol carries the version GRAFT_<SOVERSION> (c_api/graft.map.in): nm prints
# graft_f@@GRAFT_N; the version's own definition is the one other name allowed.
version="GRAFT_$soversion"
exported=$(nm -D --defined-only --with-symbol-versions "$lib" | awk '{print $3}' | sort -u)
names=$(echo "$exported" | sed 's/@.*//' | grep -v "^$version\$" | sort -u)
others=$(echo "$names" | grep -v '^graft_' || true)
count=$(echo "$names" | grep -c '^graft_' || true)
if [ -n "$others" ]; then
  echo "FAIL: libgraft exports symbols outside the C API:"
  echo "$others" | head -50
  exit 1
fi
if [ "$count" -lt 1 ]; then
  echo "FAIL: libgraft exports no graft_* symbol"
  exit 1
fi
unversioned=$(echo "$exported" | grep '^graft_' | grep -v "@@$version\$" || true)
if [ -n "$unversioned" ]; then
  echo "FAIL: exported symbols without the default version $version:"
  echo "$unversioned" | head -50
  exit 1
fi
echo "ok: SONAME $soname, $count exported symbols, all graft_*@@$version"
