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
run() { # $1: what; $2: other libgomps loaded; rest: the command
  local what=$1 others=$2 out
  shift 2
  out=$("$@" 2>&1) || fail "$what: exit status $? ($out)"
  grep -q "sum=500500" <<<"$out" || fail "$what: wrong result: $out"
  grep -q "thread1=spool-" <<<"$out" || fail "$what: thread 1 is not a spool worker: $out"
  grep -qE "runtime=.*(spool-omp|$gomp_dir)" <<<"$out" || fail "$what: not on libspool-omp: $out"
  grep -q "other_libgomp=$others" <<<"$out" || fail "$what: not $others other libgomp: $out"
  if grep -qi "version information" <<<"$out"; then fail "$what: the loader warned: $out"; fi
  # One runtime reads the environment: one display block, one line for a
  # bad value, none from a libgomp loaded beside it.
  out=$(OMP_DISPLAY_ENV=true OMP_SCHEDULE=junk "$@" 2>&1) || fail "$what: exit status $? ($out)"
  [ "$(grep -c "OPENMP DISPLAY ENVIRONMENT BEGIN" <<<"$out")" = 1 ] ||
    fail "$what: not one OMP_DISPLAY_ENV block: $out"
  [ "$(grep -c "OMP_SCHEDULE='junk'" <<<"$out")" = 1 ] || fail "$what: not one line for junk: $out"
  if grep -q "libgomp:" <<<"$out"; then fail "$what: libgomp read the environment: $out"; fi
  echo "ways.sh: $what: ok"
}
out=$(OMP_NUM_THREADS=2 "$prog")
grep -q "runtime=.*libgomp" <<<"$out" || fail "without a way in: not on libgomp: $out"
grep -q "thread1=spool-" <<<"$out" && fail "without a way in: ran on spool: $out"
echo "ways.sh: plain: $out"
export OMP_NUM_THREADS=2
# Preloaded, libgomp loads too (silent); by its name or the command, it
# does not load at all.
run LD_PRELOAD 1 env LD_PRELOAD="$lib" "$prog"
run LD_LIBRARY_PATH 0 env LD_LIBRARY_PATH="$gomp_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$prog"
run spool-omp 0 "$cmd" "$prog"
run "spool-omp --" 0 "$cmd" -- "$prog"
# The command refuses to run nothing.
if "$cmd" >/dev/null 2>&1; then fail "spool-omp with no program succeeded"; fi
echo "ways.sh: all three ways in run on libspool-omp"
