#!/usr/bin/env bash
# The OpenMP kernels of bench/ (spool-omp-peer: built once with gcc
# -fopenmp and linked with libgomp) on each runtime of gcc's ABI: libgomp,
# LLVM's libomp by LD_PRELOAD (where installed), and libspool-omp by
# LD_PRELOAD.  Runs interleaved (run 1 of every configuration, then run
# 2, ...), prints every run's line, then a table of medians with
# libspool-omp over the better of the other two.
#
#   bench/omp_runtimes.sh BUILD_DIR [RUNS] [THREADS...]
#
# COMPILER=clang: the same kernels built here by clang -fopenmp (LLVM's ABI,
# linked with libomp), on libomp and on libspool-omp by LD_PRELOAD.
#
# Environment: WORKLOADS="triad mandelbrot ..." picks rows (default: W8-W14
# with their variants, W4 and W5, and the task rows W1-W3: fib, nqueens and
# a million tasks from one thread);
# OMP_EXTRA="OMP_WAIT_POLICY=passive" adds a libgomp row with that setting;
# LIBOMP=path overrides where libomp.so.5 is looked for.
set -euo pipefail
build=$(cd "${1:?usage: omp_runtimes.sh BUILD_DIR [RUNS] [THREADS...]}" && pwd)
runs=${2:-5}
shift $(($# > 1 ? 2 : 1))
threads=("${@:-1 2}")
[ $# -gt 0 ] || threads=(1 2)
peer=$build/bench/spool-omp-peer
spool_omp=$build/omp/libspool-omp.so
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "${COMPILER:-gcc}" = clang ]; then
  src=$(cd "$(dirname "$0")" && pwd)
  peer=$work/peer-clang
  clang -O2 -fopenmp -D_POSIX_C_SOURCE=200809L -DSPOOL_BENCH_OPENMP -o "$peer" \
    "$src/omp_peer.c" "$src/omp_kernels.c" "$src/kernels.c" "$src/uts.c" "$src/dp.c" -lm ||
    { echo "omp_runtimes.sh: clang -fopenmp cannot build the kernels" >&2; exit 2; }
fi
[ -x "$peer" ] || { echo "omp_runtimes.sh: $peer is missing (build with gcc)" >&2; exit 2; }
[ -r "$spool_omp" ] || { echo "omp_runtimes.sh: $spool_omp is missing" >&2; exit 2; }
libomp=${LIBOMP:-}
if [ -z "$libomp" ]; then
  for f in /usr/lib/x86_64-linux-gnu/libomp.so.5 /usr/lib/llvm-*/lib/libomp.so.5; do
    [ -r "$f" ] && { libomp=$f; break; }
  done
fi
# The peer's rows are named after its file: one link per runtime.
ln -s "$peer" "$work/libspool-omp"
if [ "${COMPILER:-gcc}" = clang ]; then
  runtimes=("libspool-omp")
else
  ln -s "$peer" "$work/libgomp"
  runtimes=("libgomp" "libspool-omp")
fi
[ -n "$libomp" ] && { ln -s "$peer" "$work/libomp"; runtimes+=("libomp"); }
if [ -n "${OMP_EXTRA:-}" ]; then
  ln -s "$peer" "$work/libgomp-${OMP_EXTRA//[^a-zA-Z0-9]/_}"
  runtimes+=("libgomp-${OMP_EXTRA//[^a-zA-Z0-9]/_}")
fi

default_rows="triad:8388608 triad/static:8388608 mandelbrot:384 mandelbrot/dynamic:384
  mandelbrot/guided:384 small-loops:200000 small-loops/inside:200000 sum:16777216 nested:20000 broadcast:20000
  sporadic:2000 sporadic/sections:2000 wake:200 fib:32 nqueens:12 spawn-lifo:1000000"
rows=()
for r in ${WORKLOADS:-$default_rows}; do
  case "$r" in
    *:*) rows+=("$r") ;;
    *) for d in $default_rows; do [ "${d%%:*}" = "$r" ] && rows+=("$d"); done ;;
  esac
done

env_of() { # the environment a runtime's run gets
  case "$1" in
    libspool-omp) echo "LD_PRELOAD=$spool_omp" ;;
    libomp) echo "LD_PRELOAD=$libomp" ;;
    libgomp-*) echo "$OMP_EXTRA" ;;
    *) echo "" ;;
  esac
}

raw=$work/raw.txt
for ((run = 1; run <= runs; run++)); do
  for r in "${rows[@]}"; do
    w=${r%%:*} n=${r#*:}
    for t in "${threads[@]}"; do
      for rt in "${runtimes[@]}"; do
        # OMP_NUM_THREADS: the largest team the row opens (T, or T + 1
        # for W4 and W5's submitting thread), so that every runtime,
        # libspool-omp's pool included, is sized for it.
        team=$t
        case "$w" in sporadic* | wake) team=$((t + 1)) ;; esac
        line=$(env OMP_NUM_THREADS=$team $(env_of "$rt") "$work/$rt" "$w" "$n" "$t" 2>&1 | tail -1) ||
          line="$rt $w $n $t FAILED"
        echo "$line" | tee -a "$raw"
      done
    done
  done
done

echo
echo "medians of $runs runs ($(nproc) CPUs, $(date -u +%Y-%m-%d)); spool/best: libspool-omp over the better of the others"
awk -v rts="${runtimes[*]}" '
  function med(k,   n, i, j, t, a) {
    n = split(vals[k], a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  $5 ~ /^[0-9.]+$/ {
    split($1, p, "/"); who = p[1]; var = (p[2] != "" ? "/" p[2] : "")
    key = $2 var " " $3 " " $4
    if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
    vals[key SUBSEP who] = vals[key SUBSEP who] " " $5
    for (i = 6; i <= NF; i++) if ($i ~ /^(cpu_s|p50_us)=/) {
      split($i, kv, "="); extra[key SUBSEP who SUBSEP kv[1]] = extra[key SUBSEP who SUBSEP kv[1]] " " kv[2] }
  }
  END {
    n = split(rts, rt, " ")
    printf "%-26s %8s %3s", "workload", "n", "T"
    for (i = 1; i <= n; i++) printf " %14s", rt[i]
    printf " %10s\n", "spool/best"
    for (k = 1; k <= nk; k++) {
      split(order[k], col, " ")
      printf "%-26s %8s %3s", col[1], col[2], col[3]
      best = -1; spool = -1
      for (i = 1; i <= n; i++) {
        key = order[k] SUBSEP rt[i]
        if (!(key in vals)) { printf " %14s", "-"; continue }
        m = med(key)
        if (col[1] == "wake") { vals["w"] = extra[key SUBSEP "p50_us"]; m = med("w"); printf " %11.1fus", m }
        else if (col[1] ~ /^sporadic/) { vals["c"] = extra[key SUBSEP "cpu_s"]; m = med("c"); printf " %12.3fcs", m }
        else printf " %14.6f", m
        if (rt[i] == "libspool-omp") spool = m
        else if (rt[i] !~ /^libgomp-/ && (best < 0 || m < best)) best = m
      }
      if (spool > 0 && best > 0) printf " %10.2f", spool / best
      printf "\n"
    }
    print "(wake: median p50 latency; sporadic: median CPU seconds of the whole run; others: median seconds)"
  }' "$raw"
