#!/usr/bin/env bash
# The thread-scaling table in one command: builds spool (Release) with its
# benchmarks and the peers this machine has (OpenMP's libgomp with the
# compiler; oneTBB if its headers are installed), then runs spool-bench on
# each workload at 1, 2, 4, 8 and 16 threads and prints its table (medians,
# spool over the sequential run and over each peer).  Each workload is one
# slot with a time limit: a slot that does not finish says so and the rest
# still run; the whole stays within a budget (default 7 minutes).
#
#   scripts/scale.sh [loops|tasks|all|counts]
#
# Groups: loops (W8-W14 and W10's forms: triad, Mandelbrot, short loops
# inside and outside a pool, on the caller and after 100 us of the
# caller's own work, sums, nested loops, a loop in a join, broadcasts)
# and tasks (W1-W3, copying, group and per-thread-counter spawns, the
# BOTS-like coarse shapes).  counts: W1-W3 once per thread count in a
# -DSPOOL_STATS=ON build (folder SCALE_BUILD-stats), one table of what an
# operation cost on shared lines (scripts/scale_counts.sh).
# Environment: SCALE_THREADS (default
# 1,2,4,8,16), SCALE_RUNS (runs per configuration, default 3),
# SCALE_SLOT (seconds per workload, default 40), SCALE_BUDGET (seconds in
# all, default 420), SCALE_BUILD (build folder, default build-scale; one
# with bench/spool-bench already built is used as it is when cmake is
# missing or SCALE_PREBUILT=1, as on a machine the build was copied to).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
group=${1:-all}
threads=${SCALE_THREADS:-1,2,4,8,16}
runs=${SCALE_RUNS:-3}
slot=${SCALE_SLOT:-40}
budget=${SCALE_BUDGET:-420}
build=${SCALE_BUILD:-build-scale}
start=$SECONDS

loops=(small-loops/inside small-loops small-loops/caller small-loops/gap100 broadcast mandelbrot
       mandelbrot/dynamic sum sum/fixed nested nested/isolated triad triad/static loop-in-join)
# fib last, with a triple slot: libgomp's task fib takes about 20 s a round
# at 1-16 threads on 16 cores, and must not starve the rest of the budget.
tasks=(nqueens spawn-lifo spawn-fifo spawn-lifo/copy16 spawn-lifo/group spawn-lifo/spread
       spawn-fifo/spread coarse coarse/mixed fib)
case "$group" in
  loops) list=("${loops[@]}") ;;
  tasks) list=("${tasks[@]}") ;;
  all) list=("${loops[@]}" "${tasks[@]}") ;;
  counts) exec scripts/scale_counts.sh ;;
  *) echo "scripts/scale.sh: unknown group '$group' (loops, tasks, all or counts)" >&2; exit 2 ;;
esac

echo "# scripts/scale.sh $group: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')), threads $threads, $runs runs, $(date -u +%Y-%m-%dT%H:%MZ)"
if [ "${SCALE_PREBUILT:-0}" != 1 ] && command -v cmake >/dev/null 2>&1; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DSPOOL_BUILD_TESTS=OFF \
        -DSPOOL_BUILD_EXAMPLES=OFF >"$build.configure.log" 2>&1 &&
    cmake --build "$build" -j "$(nproc)" --target spool-bench >"$build.build.log" 2>&1 ||
    { echo "scripts/scale.sh: the build failed ($build.configure.log, $build.build.log)" >&2; exit 1; }
fi
bench=$build/bench/spool-bench
[ -x "$bench" ] || { echo "scripts/scale.sh: no $bench" >&2; exit 1; }
echo "# built in $((SECONDS - start)) s; peers: $("$bench" -n 1 -t 1 -w fib --quick 2>&1 >/dev/null | sed -n 's/.*peers: //p' | head -1)"

header_done=false
for w in "${list[@]}"; do
  left=$((budget - (SECONDS - start)))
  if [ "$left" -le 5 ]; then
    echo "| $w | - | not run: the budget of ${budget} s was spent |"
    continue
  fi
  limit=$slot
  [ "$w" = fib ] && limit=$((3 * slot))
  # libgomp's task spawns slow down with the threads: its three rounds
  # of a spawn-lifo row need more than one slot on 16 cores.
  case "$w" in spawn-lifo | spawn-lifo/spread) limit=$((2 * slot)) ;; esac
  [ "$left" -lt "$limit" ] && limit=$left
  t0=$SECONDS
  out=$(timeout "$limit" "$bench" -n "$runs" -t "$threads" -w "$w" 2>&1)
  rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "| $w | - | did not finish in ${limit} s (exit $rc) |"
    continue
  fi
  if ! $header_done; then
    grep -E '^\| workload|^\|---' <<<"$out"
    header_done=true
  fi
  grep -E '^\| ' <<<"$out" | grep -vE '^\| workload|^\|---'
  echo "<!-- $w: $((SECONDS - t0)) s -->"
done
echo "# done in $((SECONDS - start)) s"
