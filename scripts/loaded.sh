#!/usr/bin/env bash
# Runs a command beside N busy processes (one shell loop each), as CI runs
# the tests beside the model checkers: a test that counts on a woken
# worker running within a few short rounds fails here.  The busy processes
# end with the command; its exit status is returned.
#
#   scripts/loaded.sh N COMMAND [ARG...]
#   scripts/loaded.sh 3 scripts/test.sh plain
set -uo pipefail
n=${1:?usage: scripts/loaded.sh N COMMAND [ARG...]}
shift
[ $# -gt 0 ] || { echo "usage: scripts/loaded.sh N COMMAND [ARG...]" >&2; exit 2; }
pids=()
for ((i = 0; i < n; i++)); do
  sh -c 'while :; do :; done' &
  pids+=($!)
done
stop() { [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null; }
trap stop EXIT
trap "exit 130" INT
trap "exit 143" TERM
"$@"
