#!/usr/bin/env bash
# mpi.peer_killed, mpi.cluster_peer_killed: rank 1 of 2 is killed; rank 0's all-reduce
# (test_collective_failures.c) or cluster session run (test_cluster_session.c), in mode
# "killed", must fail with a deadline error naming rank 1 instead of hanging. mpirun itself
# exits non-zero (a rank died), so the verdict is rank 0's result file.
# Usage: run_killed_peer.sh MPIEXEC TEST_EXECUTABLE
set -u
mpiexec=$1 test=$2
result=$(mktemp)
trap 'rm -f "$result"' EXIT
rm -f "$result"
output=$(timeout 120 "$mpiexec" --mca orte_abort_on_non_zero_status 0 -np 2 "$test" killed "$result" 2>&1)
if [ "$(cat "$result" 2> /dev/null)" != "ok" ]; then
  echo "FAIL: rank 0 did not report the killed peer; mpirun said:"
  echo "$output"
  exit 1
fi
echo "rank 0 failed with a deadline error naming rank 1, as it should"
