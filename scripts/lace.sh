#!/usr/bin/env bash
# Lace's own benchmark programs (github.com/trolando/lace, benchmarks/:
# fib, queens, knapsack, pi), each built twice from the same source, in a
# scratch folder outside this repository: with Lace (its src/lace.c) and
# with spool's typed tasks (bench/lace/lace.h maps Lace's task macros one
# for one onto spool_typed.h).  Both at each optimisation level, gcc,
# -DNDEBUG, no -march=native on either side.  Runs interleaved, then a
# table of median seconds and spool over Lace.  With CALLGRIND=1, also
# callgrind's instructions a fork for fib (fib 27 minus fib 20, one
# worker, counted inside the task) and knapsack's on each side.
#
#   scripts/lace.sh LACE_DIR SPOOL_BUILD_DIR [RUNS] [WORKERS...]
#
# LACE_DIR is a checkout of trolando/lace (nothing in it is changed: its
# knapsack reads its input with fscanf(...) != 3 for two numbers and so
# never starts; the scratch copy has that fixed, for both builds);
# SPOOL_BUILD_DIR a Release build of this repository (libspool.a).
# Environment: OPT="-O2 -O3" the levels; PROGRAMS="fib queens knapsack
# pi"; LACE_WORK the scratch folder (default a new one under /tmp,
# removed at the end).
set -euo pipefail
usage="usage: scripts/lace.sh LACE_DIR SPOOL_BUILD_DIR [RUNS] [WORKERS...]"
lace=$(cd "${1:?$usage}" && pwd)
build=$(cd "${2:?$usage}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${3:-7}
shift $(($# > 2 ? 3 : 2))
workers=("$@")
[ ${#workers[@]} -gt 0 ] || workers=(1 2)
[ -r "$lace/src/lace.c" ] && [ -r "$lace/benchmarks/fib/fib-lace.c" ] ||
  { echo "lace.sh: $lace is not a Lace checkout" >&2; exit 2; }
[ -r "$build/libspool.a" ] || { echo "lace.sh: $build/libspool.a is missing" >&2; exit 2; }
opts=(${OPT:--O2 -O3})
programs=(${PROGRAMS:-fib queens knapsack pi})
work=${LACE_WORK:-$(mktemp -d /tmp/lace.XXXXXX)}
[ -n "${LACE_WORK:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/bin"

# Lace's configuration header (CMake's configure_file, here by hand).
sed 's/#cmakedefine01 \([A-Z_]*\)/#define \1 0/' "$lace/src/lace_config.h.in" > "$work/src/lace_config.h"
declare -A src args
src[fib]=fib/fib-lace.c args[fib]=36
src[queens]=queens/queens-lace.c args[queens]=12
src[knapsack]=knapsack/knapsack-lace.c args[knapsack]=$work/knapsack.input
src[pi]=pi/pi-lace.c args[pi]=20000000
for p in "${programs[@]}"; do
  [ -n "${src[$p]:-}" ] || { echo "lace.sh: unknown program $p" >&2; exit 2; }
  cp "$lace/benchmarks/${src[$p]}" "$work/src/$p.c"
done
if [ -f "$work/src/knapsack.c" ]; then
  sed -i 's/fscanf(f, "%d %d", &items\[i\].value, &items\[i\].weight) != 3/fscanf(f, "%d %d", \&items[i].value, \&items[i].weight) != 2/' \
    "$work/src/knapsack.c"
  grep -q '!= 2) return -1' "$work/src/knapsack.c" || { echo "lace.sh: knapsack's input fix did not apply" >&2; exit 1; }
  # 26 items, values and weights 10-100 from a fixed seed, capacity half
  # the total weight.
  awk 'BEGIN { srand(26); n = 26; total = 0
               for (i = 0; i < n; i++) { v[i] = 10 + int(91 * rand()); w[i] = 10 + int(91 * rand()); total += w[i] }
               print n; print int(total / 2)
               for (i = 0; i < n; i++) print v[i], w[i] }' > "$work/knapsack.input"
fi

for o in "${opts[@]}"; do
  for p in "${programs[@]}"; do
    gcc -std=gnu11 $o -DNDEBUG -w -DLACE_USE_MMAP=1 -DLACE_USE_HWLOC=0 -I "$lace/src" -I "$work/src" \
        "$lace/src/lace.c" "$work/src/$p.c" -lpthread -lm -o "$work/bin/$p-lace$o"
    gcc -std=gnu11 $o -DNDEBUG -w -I "$root/bench/lace" -I "$root/include" \
        "$work/src/$p.c" "$build/libspool.a" -lpthread -lm -ldl -o "$work/bin/$p-spool$o"
  done
done

# One run: the program's own "Time:" line, and its result line, which must
# be the same on both sides.
run_one() { # $1: binary, $2: workers, $3: argument
  local out
  out=$("$1" -w "$2" "$3")
  awk '/^Time:/ {t = $2} END {print t}' <<<"$out"
  grep -vE '^(Time:|running|With)' <<<"$out" | sed 's/(accuracy.*//' > "$work/last.result"
}
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

printf '| program | opt | workers | Lace (s) | spool typed (s) | spool / Lace |\n|---|---|---:|---:|---:|---:|\n'
for p in "${programs[@]}"; do
  for o in "${opts[@]}"; do
    for w in "${workers[@]}"; do
      : > "$work/t.lace"
      : > "$work/t.spool"
      for ((r = 0; r < runs; r++)); do
        run_one "$work/bin/$p-lace$o" "$w" "${args[$p]}" >> "$work/t.lace"
        cp "$work/last.result" "$work/lace.result"
        run_one "$work/bin/$p-spool$o" "$w" "${args[$p]}" >> "$work/t.spool"
        if [ "$p" != pi ] && ! cmp -s "$work/lace.result" "$work/last.result"; then
          echo "lace.sh: $p -w $w gives $(cat "$work/last.result") on spool, $(cat "$work/lace.result") on Lace" >&2
          exit 1
        fi
      done
      tl=$(median < "$work/t.lace")
      ts=$(median < "$work/t.spool")
      printf '| %s %s | %s | %s | %s | %s | %.2f |\n' "$p" "${args[$p]##*/}" "$o" "$w" "$tl" "$ts" \
        "$(awk -v a="$ts" -v b="$tl" 'BEGIN {print a / b}')"
    done
  done
done

if [ "${CALLGRIND:-0}" = 1 ]; then
  command -v valgrind >/dev/null || { echo "lace.sh: CALLGRIND=1 needs valgrind" >&2; exit 2; }
  # Counted inside the task only (callgrind's --toggle-collect on its entry
  # from the pool: Lace's NAME_WRAP, spool's NAME_spool_steal), so that
  # neither side's waiting main thread or idle workers count.
  instr() { # $1: the task's entry; the rest: the command; prints its instructions
    local entry=$1
    shift
    valgrind --tool=callgrind --toggle-collect="$entry" --callgrind-out-file="$work/cg.out" "$@" \
      >/dev/null 2>&1
    awk '/^totals:/ {print $2}' "$work/cg.out"
  }
  entry() { [ "$1" = lace ] && echo "$2_WRAP" || echo "$2_spool_steal"; }
  # fib(n) forks fib(n+1) - 1 times: 317810 at 27, 10945 at 20.
  for o in "${opts[@]}"; do
    for side in lace spool; do
      if [ -x "$work/bin/fib-$side$o" ]; then
        a=$(instr "$(entry $side pfib)" "$work/bin/fib-$side$o" -w 1 20)
        b=$(instr "$(entry $side pfib)" "$work/bin/fib-$side$o" -w 1 27)
        printf 'callgrind fib %s %s: %.1f instructions a fork\n' "$side" "$o" \
          "$(awk -v a="$a" -v b="$b" 'BEGIN {print (b - a) / (317810 - 10945)}')"
      fi
    done
    if [ -x "$work/bin/knapsack-lace$o" ]; then
      kl=$(instr knapsack_WRAP "$work/bin/knapsack-lace$o" -w 1 "$work/knapsack.input")
      ks=$(instr knapsack_spool_steal "$work/bin/knapsack-spool$o" -w 1 "$work/knapsack.input")
      printf 'callgrind knapsack %s: Lace %s, spool %s instructions, spool / Lace %.2f\n' "$o" "$kl" "$ks" \
        "$(awk -v a="$ks" -v b="$kl" 'BEGIN {print a / b}')"
    fi
  done
fi
