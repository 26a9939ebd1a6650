#!/usr/bin/env bash
# The ABI check: compares the ABI of the built libgraft with the stored baseline
# abi/libgraft.abi, and fails on any difference, saying which kind it is.
#   check_abi.sh LIBRARY BASELINE HEADERS_DIR WORK_DIR
# The baseline must always match the build. A difference is either a change made without
# bumping GRAFT_SOVERSION (graft/version.h), which is a bug unless it only adds to the ABI, or
# a deliberate break with a new SONAME, after which the baseline is regenerated with
# scripts/update-abi-baseline.sh. Needs abigail-tools (abidw, abidiff); fails without them.
set -euo pipefail
lib="$1"
baseline="$2"
headers="$3"
work="$4"
here="$(cd "$(dirname "$0")" && pwd)"
update="scripts/update-abi-baseline.sh"

for tool in abidw abidiff; do
  if ! command -v "$tool" > /dev/null; then
    echo "FAIL: $tool not found: the ABI check needs abigail-tools (apt-get install abigail-tools;"
    echo "scripts/install-deps.sh installs it). Configure with -DGRAFT_ABI_CHECK=OFF to build without it."
    exit 1
  fi
done
if [ ! -f "$baseline" ]; then
  echo "FAIL: no ABI baseline at $baseline: create it with $update"
  exit 1
fi

mkdir -p "$work"
current="$work/libgraft.abi"
start=$(date +%s.%N)
"$here/abidw.sh" "$lib" "$headers" "$current"

soname_of() { sed -n "s/.*<abi-corpus [^>]*soname='\([^']*\)'.*/\1/p" "$1" | head -1; }
old_soname=$(soname_of "$baseline")
new_soname=$(soname_of "$current")
nfunctions=$(grep -c '<elf-symbol .*type=.func-type' "$current" || true)
if [ "$nfunctions" -lt 1 ]; then
  echo "FAIL: abidw found no exported function in $lib"
  exit 1
fi
if ! grep -q '<function-decl ' "$current"; then
  echo "FAIL: $lib has no debug info for the C API: build it with -DGRAFT_ABI_CHECK=ON (the default)"
  exit 1
fi

report="$work/abidiff.txt"
set +e
abidiff --no-show-locs "$baseline" "$current" > "$report" 2>&1
rc=$?
set -e
# abidiff hides the changes it rules harmless (an added enumerator, a renamed typedef): they
# are changes of the ABI too, so they count.
harmless="$work/abidiff-harmless.txt"
set +e
abidiff --no-show-locs --harmless "$baseline" "$current" > "$harmless" 2>&1
hrc=$?
set -e
end=$(date +%s.%N)
seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')

if [ $((rc & 1)) -ne 0 ] || [ $((hrc & 1)) -ne 0 ]; then
  echo "FAIL: abidiff failed (exit status $rc, $hrc):"
  cat "$report" "$harmless"
  exit 1
fi
if [ "$rc" -eq 0 ] && [ "$hrc" -eq 0 ]; then
  echo "ok: the ABI of $new_soname matches abi/$(basename "$baseline") ($nfunctions functions; abidw + abidiff ${seconds}s)"
  exit 0
fi

# The report; after a SONAME bump (every symbol's version changes) only its summary.
shown="$report"
if [ "$rc" -eq 0 ]; then shown="$harmless"; fi
max=150
if [ "$old_soname" != "$new_soname" ]; then max=12; fi
lines=$(wc -l < "$shown")
head -n "$max" "$shown"
if [ "$lines" -gt "$max" ]; then
  echo "[... $((lines - max)) more lines in $shown]"
fi
echo
if [ "$old_soname" != "$new_soname" ]; then
  echo "FAIL: the ABI changed and the SONAME was bumped ($old_soname -> $new_soname):"
  echo "regenerate the baseline with $update and commit abi/$(basename "$baseline")."
elif [ $((rc & 8)) -ne 0 ]; then
  echo "FAIL: incompatible ABI change without a SONAME bump (still $new_soname; see above)."
  echo "Undo the change, or bump GRAFT_SOVERSION in c_api/include/graft/version.h and then"
  echo "regenerate the baseline with $update."
elif [ "$rc" -eq 0 ]; then
  echo "FAIL: ABI changed without a SONAME bump (still $new_soname): a change abidiff rules"
  echo "harmless, such as an added enumerator (see above). If it is intended, regenerate the"
  echo "baseline with $update."
elif grep -q '[1-9][0-9]* Removed\|[1-9][0-9]* Changed' "$report"; then
  echo "FAIL: ABI changed without a SONAME bump (still $new_soname): existing functions or types"
  echo "changed (see above). Undo the change, or bump GRAFT_SOVERSION in"
  echo "c_api/include/graft/version.h and then regenerate the baseline with $update."
else
  echo "FAIL: ABI changed without a SONAME bump (still $new_soname): additions only, which keep"
  echo "the ABI compatible. If they are intended, regenerate the baseline with $update."
fi
exit 1
