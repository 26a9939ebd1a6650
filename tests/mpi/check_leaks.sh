#!/usr/bin/env bash
# mpi.leaks (sanitizer builds): runs a test under mpirun with LeakSanitizer on and fails when a
# leak was allocated by Graft. Open MPI's own leaks at MPI_Finalize (about 115 KB a process,
# from components it unloads, so LeakSanitizer cannot name their frames and no suppression
# file can match them) are let through: a leak counts when one of its frames is Graft's.
# Usage: check_leaks.sh MPIEXEC NP TEST [ARGS...]
set -u
mpiexec=$1 np=$2
shift 2
output=$(ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1 timeout 300 "$mpiexec" -np "$np" "$@" 2>&1)
passed=$(grep -c '\[  PASSED  \]' <<< "$output")
if [ "$passed" -eq 0 ] || grep -q '\[  FAILED  \]' <<< "$output"; then
  echo "FAIL: the test itself failed:"
  echo "$output"
  exit 1
fi
ours=$(grep -E '#[0-9]+ 0x[0-9a-f]+ in (graft[_:]|.*graft::)' <<< "$output" | head -20)
if [ -n "$ours" ]; then
  echo "FAIL: leaks allocated by Graft:"
  echo "$output"
  exit 1
fi
echo "no leak allocated by Graft ($(grep -c 'leak of' <<< "$output") leak records, all Open MPI's)"
