#!/usr/bin/env bash
# LULESH 2.0 (LLNL's hydrodynamics proxy: many short parallel loops a
# step) on each runtime of gcc's ABI: libgomp, LLVM's libomp and
# libspool-omp (both by LD_PRELOAD), interleaved, quiet and beside busy
# processes.  Prints each configuration's median wall time per runtime,
# and fails if a runtime's final origin energy differs from libgomp's.
#
#   bench/lulesh.sh LULESH_DIR BUILD_DIR [ROUNDS] [T:B ...]
#
# LULESH_DIR is a checkout of github.com/LLNL/LULESH (nothing is fetched);
# it is built once with g++ -O3 -fopenmp into a scratch folder.  A config
# T:B runs with OMP_NUM_THREADS=T while B processes spin (default 1:0 2:0
# 2:1).  Environment: LULESH_ARGS (default "-s 12 -i 1000"), LIBOMP=path.
set -euo pipefail
src=$(cd "${1:?usage: lulesh.sh LULESH_DIR BUILD_DIR [ROUNDS] [T:B ...]}" && pwd)
build=$(cd "${2:?usage: lulesh.sh LULESH_DIR BUILD_DIR [ROUNDS] [T:B ...]}" && pwd)
rounds=${3:-3}
shift $(($# > 2 ? 3 : 2))
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(1:0 2:0 2:1)
read -r -a args <<<"${LULESH_ARGS:--s 12 -i 1000}"
spool=$build/omp/libspool-omp.so
[ -r "$spool" ] || { echo "lulesh.sh: $spool is missing" >&2; exit 2; }
libomp=${LIBOMP:-}
if [ -z "$libomp" ]; then
  for f in /usr/lib/x86_64-linux-gnu/libomp.so.5 /usr/lib/llvm-*/lib/libomp.so.5; do
    [ -r "$f" ] && { libomp=$f; break; }
  done
fi
work=$(mktemp -d)
spinners=()
cleanup() {
  for p in "${spinners[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
g++ -DUSE_MPI=0 -O3 -fopenmp -I"$src" -w -o "$work/lulesh" "$src"/lulesh.cc \
  "$src"/lulesh-comm.cc "$src"/lulesh-viz.cc "$src"/lulesh-util.cc "$src"/lulesh-init.cc
names=(libgomp)
preloads=("")
[ -n "$libomp" ] && { names+=(libomp); preloads+=("$libomp"); }
names+=(libspool-omp)
preloads+=("$spool")
declare -A times
for ((r = 1; r <= rounds; r++)); do
  for cfg in "${configs[@]}"; do
    t=${cfg%%:*} b=${cfg##*:}
    for ((k = 0; k < b; k++)); do
      sh -c 'while :; do :; done' &
      spinners+=($!)
    done
    energy=""
    for i in "${!names[@]}"; do
      out=$work/out
      start=$(date +%s%N)
      OMP_NUM_THREADS=$t LD_PRELOAD=${preloads[$i]} "$work/lulesh" "${args[@]}" >"$out" 2>&1
      end=$(date +%s%N)
      e=$(awk '/Final Origin Energy/ {print $NF}' "$out")
      [ -n "$energy" ] || energy=$e
      [ "$e" = "$energy" ] || { echo "lulesh.sh: ${names[$i]} T=$t: energy $e, libgomp's $energy" >&2; exit 1; }
      times[$cfg,${names[$i]}]+=" $(((end - start) / 1000000))"
      echo "round $r T=$t busy=$b ${names[$i]}: $(((end - start) / 1000000)) ms"
    done
    for p in "${spinners[@]}"; do kill "$p" 2>/dev/null || true; done
    spinners=()
  done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
echo
echo "LULESH ${args[*]}: median wall ms of $rounds rounds ($(nproc) CPUs); spool/best: over the better of the others"
header="| T, busy |" rule="|---|"
for n in "${names[@]}"; do header+=" $n |" rule+="---:|"; done
echo "$header spool/best |"
echo "$rule---:|"
for cfg in "${configs[@]}"; do
  row="| ${cfg%%:*}, ${cfg##*:} |" best=""
  for n in "${names[@]}"; do
    m=$(median <<<"${times[$cfg,$n]}")
    row+=" $m |"
    [ "$n" = libspool-omp ] && s=$m
    [ "$n" != libspool-omp ] && { [ -z "$best" ] || [ "$m" -lt "$best" ]; } && best=$m
  done
  echo "$row $(awk -v s="$s" -v b="$best" 'BEGIN {printf "%.2f", s / b}') |"
done
