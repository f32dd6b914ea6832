#!/usr/bin/env bash
# The three ways to run an unmodified OpenMP program on libspool-omp
# (README, "OpenMP programs on spool"), each checked on a program linked
# with libgomp (omp_way.c, gcc -fopenmp) or with libomp (kmp_way.c, clang
# -fopenmp; RUNTIME libomp): LD_PRELOAD, the runtime's name on
# LD_LIBRARY_PATH, and the spool-omp command.  Without any of them the
# program must run on its own runtime (the check can fail), and no way may
# print the loader's warnings.
#   ways.sh PROGRAM LIBSPOOL_OMP GOMP_DIR SPOOL_OMP_COMMAND [RUNTIME]
set -euo pipefail
prog=$1 lib=$2 gomp_dir=$3 cmd=$4 runtime=${5:-libgomp}
# What the runtime prints when it reads the environment itself.
case "$runtime" in
  libgomp) own_line="libgomp:" ;;
  libomp) own_line="OMP: " ;;
  *) echo "ways.sh: unknown runtime $runtime" >&2; exit 2 ;;
esac
fail() { echo "ways.sh: $*" >&2; exit 1; }
run() { # $1: what; $2: other libgomps loaded; rest: the command
  local what=$1 others=$2 out
  shift 2
  out=$("$@" 2>&1) || fail "$what: exit status $? ($out)"
  grep -q "sum=500500" <<<"$out" || fail "$what: wrong result: $out"
  grep -q "thread1=spool-" <<<"$out" || fail "$what: thread 1 is not a spool worker: $out"
  grep -qE "runtime=.*(spool-omp|$gomp_dir)" <<<"$out" || fail "$what: not on libspool-omp: $out"
  grep -q "other_runtime=$others" <<<"$out" || fail "$what: not $others other $runtime: $out"
  if grep -qi "version information" <<<"$out"; then fail "$what: the loader warned: $out"; fi
  # One runtime reads the environment: one display block, one line for a
  # bad value, none from a libgomp loaded beside it.
  out=$(OMP_DISPLAY_ENV=true OMP_SCHEDULE=junk "$@" 2>&1) || fail "$what: exit status $? ($out)"
  [ "$(grep -c "OPENMP DISPLAY ENVIRONMENT BEGIN" <<<"$out")" = 1 ] ||
    fail "$what: not one OMP_DISPLAY_ENV block: $out"
  [ "$(grep -c "OMP_SCHEDULE='junk'" <<<"$out")" = 1 ] || fail "$what: not one line for junk: $out"
  if grep -q "$own_line" <<<"$out"; then fail "$what: $runtime read the environment: $out"; fi
  echo "ways.sh: $what: ok"
}
out=$(OMP_NUM_THREADS=2 "$prog")
grep -q "runtime=.*$runtime" <<<"$out" || fail "without a way in: not on $runtime: $out"
grep -q "thread1=spool-" <<<"$out" && fail "without a way in: ran on spool: $out"
echo "ways.sh: plain: $out"
export OMP_NUM_THREADS=2
# Preloaded, the runtime loads too (silent); by its name or the command,
# it does not load at all.
run LD_PRELOAD 1 env LD_PRELOAD="$lib" "$prog"
run LD_LIBRARY_PATH 0 env LD_LIBRARY_PATH="$gomp_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$prog"
run spool-omp 0 "$cmd" "$prog"
run "spool-omp --" 0 "$cmd" -- "$prog"
# A program that loads neither runtime gets a line saying so, and runs.
out=$("$cmd" /bin/true 2>&1) || fail "spool-omp /bin/true failed: $out"
grep -q "loads neither libgomp nor libomp" <<<"$out" || fail "spool-omp /bin/true said nothing: $out"
# The command refuses to run nothing.
if "$cmd" >/dev/null 2>&1; then fail "spool-omp with no program succeeded"; fi
echo "ways.sh: all three ways in run on libspool-omp"
