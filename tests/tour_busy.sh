#!/usr/bin/env bash
# The tour says when the machine was busy: with a busy loop per CPU beside
# it, its rows are marked with the share other processes took, instead of
# showing a low speed-up as spool's.
#   tests/tour_busy.sh TOUR_BINARY
set -euo pipefail
tour=$1
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
for ((i = 0; i < $(nproc); i++)); do
  (while :; do :; done) &
  pids+=($!)
done
out=$("$tour" --quick)
kill "${pids[@]}" 2>/dev/null || true
echo "$out"
grep -q "busy machine: others took" <<<"$out" ||
  { echo "tour_busy.sh: no row says the machine was busy" >&2; exit 1; }
grep -q "their speed-ups are low by up to that share" <<<"$out" ||
  { echo "tour_busy.sh: no line explains the marked rows" >&2; exit 1; }
echo "tour_busy.sh: the tour saw the busy machine"
