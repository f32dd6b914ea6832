#!/usr/bin/env bash
# Soaks the stress mix: COPIES copies of tests/test_stress_mix at once, each
# starting a new run as soon as the last one ended, until MINUTES have
# passed; counts runs, failures and hangs.  A run that outlives the
# watchdog (SOAK_HANG seconds, default 120; a run takes seconds) counts as
# hung: the stacks of all its threads are written (gdb) before it is
# killed.  A failed or hung run's output is kept.
#
#   scripts/soak.sh COPIES MINUTES
#
# Environment: SOAK_BUILD, the build folder (default build; build-random
# for the random tuning of -DSPOOL_RANDOM_TUNING=ON); SOAK_DIR, where the
# kept outputs go (default a new folder under /tmp, printed);
# SOAK_TEST, the test (default test_stress_mix; test_stress_outside has
# the outside threads and idle gaps; omp/test_omp_stress, OpenMP regions,
# tasks and dependences from several application threads, with
# OMP_NUM_THREADS set); any SPOOL_TEST_* or SPOOL_TRACE setting is passed
# on.
set -euo pipefail
cd "$(dirname "$0")/.."
copies=${1:?usage: scripts/soak.sh COPIES MINUTES}
minutes=${2:?usage: scripts/soak.sh COPIES MINUTES}
build=${SOAK_BUILD:-build}
test=${SOAK_TEST:-test_stress_mix}
hang=${SOAK_HANG:-120}
bin=$build/tests/$test
[ -x "$bin" ] || { echo "soak: $bin not built (cmake --build $build)" >&2; exit 2; }
dir=${SOAK_DIR:-$(mktemp -d /tmp/soak.XXXXXX)}
mkdir -p "$dir"
deadline=$(($(date +%s) + minutes * 60))

# One copy's loop: prints "runs failures hangs" at its end.
copy() {
  local c=$1 runs=0 fails=0 hangs=0 n out pid start rc
  while [ "$(date +%s)" -lt "$deadline" ]; do
    n=$((runs + 1))
    out=$dir/copy$c-run$n.log
    "$bin" >"$out" 2>&1 &
    pid=$!
    start=$(date +%s)
    while kill -0 "$pid" 2>/dev/null; do
      if [ $(($(date +%s) - start)) -ge "$hang" ]; then
        gdb -p "$pid" -batch -ex "thread apply all bt" >"$dir/copy$c-run$n.stacks" 2>&1 || true
        kill -9 "$pid" 2>/dev/null || true
        hangs=$((hangs + 1))
        break
      fi
      sleep 0.2
    done
    rc=0
    wait "$pid" 2>/dev/null || rc=$?
    runs=$n
    if [ -e "$dir/copy$c-run$n.stacks" ]; then
      echo "soak: copy $c run $n hung (stacks: $dir/copy$c-run$n.stacks)" >&2
    elif [ "$rc" -ne 0 ]; then
      fails=$((fails + 1))
      echo "soak: copy $c run $n failed ($rc): $out" >&2
    else
      rm -f "$out"
    fi
  done
  echo "$runs $fails $hangs"
}

pids=()
for c in $(seq 1 "$copies"); do
  copy "$c" >"$dir/copy$c.counts" &
  pids+=($!)
done
for p in "${pids[@]}"; do
  wait "$p"
done
total_runs=0 total_fails=0 total_hangs=0
for c in $(seq 1 "$copies"); do
  read -r r f h <"$dir/copy$c.counts"
  total_runs=$((total_runs + r))
  total_fails=$((total_fails + f))
  total_hangs=$((total_hangs + h))
done
echo "soak: $test ($build), $copies copies, $minutes min: $total_runs runs, $total_fails failures, $total_hangs hangs (kept in $dir)"
[ "$total_fails" -eq 0 ] && [ "$total_hangs" -eq 0 ]
