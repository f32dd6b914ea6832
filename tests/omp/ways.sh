#!/usr/bin/env bash
# The three ways to run an unmodified gcc -fopenmp program on libspool-omp
# (README, "OpenMP programs on spool"), each checked on a program linked
# with libgomp (omp_way.c): LD_PRELOAD, the libgomp.so.1 name on
# LD_LIBRARY_PATH, and the spool-omp command.  Without any of them the
# program must run on libgomp (the check can fail), and no way may print
# the loader's warnings.
#   ways.sh PROGRAM LIBSPOOL_OMP GOMP_DIR SPOOL_OMP_COMMAND
set -euo pipefail
prog=$1 lib=$2 gomp_dir=$3 cmd=$4
fail() { echo "ways.sh: $*" >&2; exit 1; }
run() { # $1: what; rest: the command; checks that it ran on libspool-omp
  local what=$1 out
  shift
  out=$("$@" 2>&1) || fail "$what: exit status $? ($out)"
  grep -q "sum=500500" <<<"$out" || fail "$what: wrong result: $out"
  grep -q "thread1=spool-" <<<"$out" || fail "$what: thread 1 is not a spool worker: $out"
  grep -qE "runtime=.*(spool-omp|$gomp_dir)" <<<"$out" || fail "$what: not on libspool-omp: $out"
  if grep -qi "version information" <<<"$out"; then fail "$what: the loader warned: $out"; fi
  echo "ways.sh: $what: $out"
}
out=$(OMP_NUM_THREADS=2 "$prog")
grep -q "runtime=.*libgomp" <<<"$out" || fail "without a way in: not on libgomp: $out"
grep -q "thread1=spool-" <<<"$out" && fail "without a way in: ran on spool: $out"
echo "ways.sh: plain: $out"
export OMP_NUM_THREADS=2
run LD_PRELOAD env LD_PRELOAD="$lib" "$prog"
run LD_LIBRARY_PATH env LD_LIBRARY_PATH="$gomp_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$prog"
run spool-omp "$cmd" "$prog"
run "spool-omp --" "$cmd" -- "$prog"
# The command refuses to run nothing.
if "$cmd" >/dev/null 2>&1; then fail "spool-omp with no program succeeded"; fi
echo "ways.sh: all three ways in run on libspool-omp"
