#!/usr/bin/env bash
# What W1-W3 cost per operation on lines other workers write, at each
# thread count (scripts/scale.sh counts): builds spool-peer with
# -DSPOOL_STATS=ON and runs each workload once per thread count with
# SPOOL_PEER_COUNTS=1.  A row gives the time of that one run (the counters
# cost a little), busy = CPU time / (threads x wall time), the process's
# context switches in that run (a sleep is one, and so is a yield or a
# preemption that gives the CPU to another thread), and the workers'
# counters summed and divided by the workload's operations (a spawn, an
# nqueens node, a join of fib): steals, failed steals, sleeps, wake-ups
# given, and read-modify-writes on scope and group counts, deques, FIFO
# queues and the sleep counters.  Environment as scripts/scale.sh:
# SCALE_THREADS, SCALE_BUILD (this uses SCALE_BUILD-stats), SCALE_PREBUILT.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
threads=${SCALE_THREADS:-1,2,4,8,16}
build=${SCALE_BUILD:-build-scale}-stats
start=$SECONDS
work=("nqueens 12" "spawn-lifo 1000000" "spawn-lifo/spread 1000000" "spawn-fifo 1000000"
      "spawn-fifo/spread 1000000" "fib 32")

echo "# scripts/scale.sh counts: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')), threads $threads, $(date -u +%Y-%m-%dT%H:%MZ)"
if [ "${SCALE_PREBUILT:-0}" != 1 ] && command -v cmake >/dev/null 2>&1; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSPOOL_STATS=ON -DSPOOL_BUILD_TESTS=OFF \
        -DSPOOL_BUILD_EXAMPLES=OFF >"$build.configure.log" 2>&1 &&
    cmake --build "$build" -j "$(nproc)" --target spool-peer >"$build.build.log" 2>&1 ||
    { echo "scripts/scale_counts.sh: the build failed ($build.configure.log, $build.build.log)" >&2; exit 1; }
fi
peer=$build/bench/spool-peer
[ -x "$peer" ] || { echo "scripts/scale_counts.sh: no $peer" >&2; exit 1; }

echo "| workload | T | s | busy | switches | per | steals | failed steals | sleeps | wake-ups | RMW counts | RMW deques | RMW queues | RMW sleep |"
echo "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for wn in "${work[@]}"; do
  for t in ${threads//,/ }; do
    # shellcheck disable=SC2086 # wn is "WORKLOAD N"
    out=$(SPOOL_PEER_COUNTS=1 timeout 60 "$peer" $wn "$t" 2>&1)
    rc=$?
    if [ "$rc" -ne 0 ]; then
      echo "| ${wn% *} | $t | did not finish (exit $rc) |"
      continue
    fi
    awk -v t="$t" '
      /^counts / { for (i = 6; i <= NF; i++) { split($i, kv, "="); c[kv[1]] = kv[2] } w = $3 " " $4 }
      /^spool/ && NF >= 6 { s = $5; for (i = 7; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "cpu_s") cpu = kv[2]; if (kv[1] == "csw") csw = kv[2] } }
      END {
        if (w == "") { print "| - | " t " | no counts (not a -DSPOOL_STATS=ON build?) |"; exit }
        printf "| %s | %d | %.6f | %.2f | %s | %s | %.3g | %.3g | %.3g | %.3g | %.3g | %.3g | %.3g | %.3g |\n",
               w, t, s, cpu / (t * s), csw, c["per"], c["steals"], c["failed_steals"], c["sleeps"],
               c["woke"], c["rmw_counts"], c["rmw_deques"], c["rmw_queues"], c["rmw_sleep"]
      }' <<<"$out"
  done
done
echo "# done in $((SECONDS - start)) s"
