#!/usr/bin/env bash
# The Barcelona OpenMP Tasks Suite (github.com/bsc-pm/bots), its OpenMP-task
# programs as published, each built once with gcc -fopenmp (outside this
# repository, in a scratch folder) and run with verification (-c) on
# libgomp, on LLVM's libomp (LD_PRELOAD, where installed) and on
# libspool-omp (LD_PRELOAD): runs interleaved, then a table of median
# times with libspool-omp over libgomp, and every verification's result.
#
#   scripts/bots.sh BOTS_DIR SPOOL_BUILD_DIR [RUNS] [THREADS...]
#
# BOTS_DIR is a checkout of bsc-pm/bots (nothing in it is changed);
# SPOOL_BUILD_DIR a build of this repository (omp/libspool-omp.so).
# Environment: PROGRAMS="fib sort ..." picks programs; BOTS_WORK, the
# scratch folder (default a new one under /tmp, removed at the end).
set -euo pipefail
bots=$(cd "${1:?usage: scripts/bots.sh BOTS_DIR SPOOL_BUILD_DIR [RUNS] [THREADS...]}" && pwd)
build=$(cd "${2:?usage: scripts/bots.sh BOTS_DIR SPOOL_BUILD_DIR [RUNS] [THREADS...]}" && pwd)
runs=${3:-5}
shift $(($# > 2 ? 3 : 2))
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 2)
spool_omp=$build/omp/libspool-omp.so
[ -r "$spool_omp" ] || { echo "bots.sh: $spool_omp is missing" >&2; exit 2; }
[ -r "$bots/common/bots_main.c" ] || { echo "bots.sh: $bots is not a BOTS checkout" >&2; exit 2; }
libomp=
for f in /usr/lib/x86_64-linux-gnu/libomp.so.5 /usr/lib/llvm-*/lib/libomp.so.5; do
  [ -r "$f" ] && { libomp=$f; break; }
done
work=${BOTS_WORK:-$(mktemp -d /tmp/bots.XXXXXX)}
[ -n "${BOTS_WORK:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"

# name: source folder (under omp-tasks), sources, arguments (sized for
# 0.2-2 s at one thread on libgomp on a 2-vCPU VM).
declare -A dir args srcs
add() { dir[$1]=$2; srcs[$1]=$3; args[$1]=$4; }
add fib fib "fib.c" "-n 32"
add nqueens nqueens "nqueens.c" "-n 12"
add sort sort "sort.c" "-n 8388608"
add fft fft "fft.c" "-n 4194304"
add health health "health.c" "-f $bots/inputs/health/small.input"
add sparselu_single sparselu/sparselu_single "sparselu.c" "-n 30 -m 50"
add sparselu_for sparselu/sparselu_for "sparselu.c" "-n 30 -m 50"
add floorplan floorplan "floorplan.c" "-f $bots/inputs/floorplan/input.15"
add strassen strassen "strassen.c" "-n 2048"
add alignment_single alignment/alignment_single "alignment.c sequence.c" "-f $bots/inputs/alignment/prot.20.aa"
add alignment_for alignment/alignment_for "alignment.c sequence.c" "-f $bots/inputs/alignment/prot.20.aa"
add uts uts "uts.c brg_sha1.c" "-f $bots/inputs/uts/test.input"
programs=(${PROGRAMS:-fib nqueens sort fft health sparselu_single sparselu_for floorplan strassen alignment_single alignment_for uts})

info=(-DCDATE='"-"' -DCC='"gcc"' -DLD='"gcc"' -DCMESSAGE='"-"' -DLDFLAGS='"-"' -DCFLAGS='"-"')
for p in "${programs[@]}"; do
  [ -n "${dir[$p]:-}" ] || { echo "bots.sh: unknown program $p" >&2; exit 2; }
  d=$bots/omp-tasks/${dir[$p]}
  src=()
  for s in ${srcs[$p]}; do src+=("$d/$s"); done
  gcc -fopenmp -O2 -w -I "$bots/common" -I "$d" "${info[@]}" "$bots/common/bots_main.c" \
      "$bots/common/bots_common.c" "${src[@]}" -lm -o "$work/bin/$p" ||
    { echo "bots.sh: $p does not build" >&2; exit 1; }
done

runtimes=(libgomp libspool-omp)
[ -n "$libomp" ] && runtimes+=(libomp)
env_of() {
  case "$1" in
    libspool-omp) echo "LD_PRELOAD=$spool_omp" ;;
    libomp) echo "LD_PRELOAD=$libomp" ;;
    *) echo "" ;;
  esac
}

# One line per run: program threads runtime seconds verification.
raw=$work/raw.txt
: >"$raw"
for ((run = 1; run <= runs; run++)); do
  for p in "${programs[@]}"; do
    for t in "${threads[@]}"; do
      for rt in "${runtimes[@]}"; do
        # -o 4: one row, fields separated by ';' (6: verification, 7: time).
        # shellcheck disable=SC2086
        row=$(cd "$work" && env OMP_NUM_THREADS="$t" $(env_of "$rt") timeout 600 \
                "$work/bin/$p" ${args[$p]} -c -v 0 -o 4 2>/dev/null | grep ';' | tail -1) || true
        verify=$(cut -d';' -f6 <<<"$row")
        secs=$(cut -d';' -f7 <<<"$row")
        [ -n "$secs" ] || { secs=-; verify=failed; }
        echo "$p $t $rt $secs ${verify// /_}" | tee -a "$raw"
      done
    done
  done
done

echo
echo "BOTS medians of $runs runs ($(nproc) CPUs, $(date -u +%Y-%m-%d)); spool/gomp: libspool-omp over libgomp"
awk -v rts="${runtimes[*]}" '
  function med(k,   n, i, j, t, a) {
    n = split(vals[k], a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  {
    key = $1 " " $2
    if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
    if ($4 != "-") vals[key SUBSEP $3] = vals[key SUBSEP $3] " " $4
    if ($5 != "successful") bad[key SUBSEP $3] = bad[key SUBSEP $3] " " $5
  }
  END {
    n = split(rts, rt, " ")
    printf "%-18s %3s", "program", "T"
    for (i = 1; i <= n; i++) printf " %13s", rt[i]
    printf " %10s  %s\n", "spool/gomp", "verification"
    for (k = 1; k <= nk; k++) {
      split(order[k], col, " ")
      printf "%-18s %3s", col[1], col[2]
      g = -1; s = -1; v = "successful"
      for (i = 1; i <= n; i++) {
        key = order[k] SUBSEP rt[i]
        if (key in bad) v = "NOT successful on " rt[i] ":" bad[key]
        if (!(key in vals)) { printf " %13s", "-"; continue }
        m = med(key)
        printf " %13.4f", m
        if (rt[i] == "libgomp") g = m
        if (rt[i] == "libspool-omp") s = m
      }
      if (g > 0 && s > 0) printf " %10.2f", s / g
      else printf " %10s", "-"
      printf "  %s\n", v
    }
  }' "$raw"
