#!/usr/bin/env bash
# Builds spool and runs the whole test suite: a normal build (with the
# packaging, ABI and header checks and the spin models), the same with
# clang (C and C++ compilers; the models are not run twice), the suite under
# -fsanitize=thread and under -fsanitize=address,undefined, the unit tests
# under valgrind memcheck, the unit tests of the two other builds that
# are shipped as options: -DSPOOL_STATS=ON and -DSPOOL_TRACE=OFF, and the
# stress tests with every tuning constant drawn at random per process
# (-DSPOOL_RANDOM_TUNING=ON, src/platform/tuning.h), once more with the timeline on.
# On Debian, run as root, it first installs whatever the build and the
# tests need and lack.
#
#   scripts/test.sh            everything (what CI runs)
#   scripts/test.sh plain      one variant: plain, clang, thread, address,undefined,
#                              valgrind, stats, notrace or random
#
# Environment: SPOOL_TEST_SCALE multiplies stress iteration counts;
# CTEST_ARGS adds ctest arguments (e.g. "--repeat until-fail:20"); CI=true
# (set by .ci/run) makes a missing checker (spin, abidiff, python3) fail the
# configuration instead of leaving its test out.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v make >/dev/null 2>&1 || need+=(make)
command -v c++ >/dev/null 2>&1 || need+=(g++)
command -v clang >/dev/null 2>&1 || need+=(clang)
command -v abidiff >/dev/null 2>&1 || need+=(abigail-tools)
command -v man >/dev/null 2>&1 || need+=(man-db)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v spin >/dev/null 2>&1 || need+=(spin)
command -v valgrind >/dev/null 2>&1 || need+=(valgrind)
[ -e /usr/include/cmocka.h ] || need+=(libcmocka-dev)
# gcc's OpenMP support (omp.h, libgomp): libspool-omp's tests build OpenMP
# programs.  It comes with gcc on Debian; a machine without it gets it.
if command -v gcc >/dev/null 2>&1 &&
   ! echo 'int main(void){return 0;}' | gcc -fopenmp -x c -o /dev/null - >/dev/null 2>&1; then
  need+=(libgomp1 "libgcc-$(gcc -dumpversion | cut -d. -f1)-dev")
fi
# clang's omp.h (Debian's libomp-dev): libspool-omp's __kmpc_ door is
# tested on a program clang builds.
if ! command -v clang >/dev/null 2>&1 ||
   ! echo '#include <omp.h>' | clang -fopenmp -x c -fsyntax-only - >/dev/null 2>&1; then
  need+=(libomp-dev)
fi
# The real programs of examples/: a libuv server and an MPI program.
[ -e /usr/include/uv.h ] || need+=(libuv1-dev)
command -v mpicc >/dev/null 2>&1 || need+=(libopenmpi-dev)
command -v mpirun >/dev/null 2>&1 || need+=(openmpi-bin)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "scripts/test.sh: missing ${need[*]}; install them (Debian: apt-get install -y ${need[*]})" >&2
    exit 1
  fi
  echo "scripts/test.sh: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi

variants=("${@:-all}")
[ "${variants[0]}" = all ] && variants=(plain clang thread address,undefined valgrind stats notrace random)

jobs=$(nproc 2>/dev/null || echo 2)
times=()
for v in "${variants[@]}"; do
  t_variant=$SECONDS
  labels=()
  case "$v" in
    plain) dir=build; sanitize=""; extra=() ;;
    clang) dir=build-clang; sanitize=""; extra=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
                                                 -DSPOOL_MODEL_CHECK=OFF) ;;
    thread) dir=build-tsan; sanitize=thread; extra=() ;;
    address,undefined) dir=build-asan; sanitize=address,undefined; extra=() ;;
    valgrind) dir=build-valgrind; sanitize=""; extra=(-DSPOOL_VALGRIND=ON) ;;
    # The other shipped builds: their code paths run, the unit tests only.
    stats) dir=build-stats; sanitize=""; labels=(-L unit)
           extra=(-DSPOOL_STATS=ON -DSPOOL_MODEL_CHECK=OFF -DSPOOL_BENCH=OFF -DSPOOL_BUILD_EXAMPLES=OFF) ;;
    notrace) dir=build-notrace; sanitize=""; labels=(-L unit)
             extra=(-DSPOOL_TRACE=OFF -DSPOOL_MODEL_CHECK=OFF -DSPOOL_BENCH=OFF -DSPOOL_BUILD_EXAMPLES=OFF) ;;
    # Random tuning: no constant may matter for safety or liveness.
    random) dir=build-random; sanitize=""; labels=(-L stress)
            extra=(-DSPOOL_RANDOM_TUNING=ON -DSPOOL_MODEL_CHECK=OFF -DSPOOL_BENCH=OFF -DSPOOL_BUILD_EXAMPLES=OFF) ;;
    *) echo "scripts/test.sh: unknown variant '$v'" >&2; exit 2 ;;
  esac
  echo "=== spool tests: $v ($dir)"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPOOL_SANITIZE="$sanitize" "${extra[@]}" >/dev/null
  cmake --build "$dir" -j "$jobs"
  # Sanitized builds run several times slower: a tenth of the outside joins
  # (unless the caller chose a count).
  joins=${SPOOL_TEST_OUTSIDE_JOINS:-}
  [ -n "$sanitize" ] && [ -z "$joins" ] && joins=50000
  # shellcheck disable=SC2086
  (cd "$dir" && SPOOL_TEST_OUTSIDE_JOINS=${joins:-500000} ctest --output-on-failure -j "$jobs" \
     ${labels[@]+"${labels[@]}"} ${CTEST_ARGS:-})
  if [ "$v" = random ]; then
    echo "=== spool tests: $v, with SPOOL_TRACE set"
    rm -rf "$dir/trace-env" && mkdir -p "$dir/trace-env"
    # shellcheck disable=SC2086
    (cd "$dir" && SPOOL_TRACE="$PWD/trace-env/t-%p.json" ctest --output-on-failure -j "$jobs" \
       -L stress ${CTEST_ARGS:-})
  fi
  if [ "$v" = thread ]; then
    # Once more with every pool recording its timeline (SPOOL_TRACE): the
    # workers write their rings while the pools run and are destroyed.
    echo "=== spool tests: $v, with SPOOL_TRACE set"
    rm -rf "$dir/trace-env" && mkdir -p "$dir/trace-env"
    # shellcheck disable=SC2086
    (cd "$dir" && SPOOL_TRACE="$PWD/trace-env/t-%p.json" SPOOL_TEST_OUTSIDE_JOINS=${joins:-500000} \
       ctest --output-on-failure -j "$jobs" -L "unit|stress|example" -E "^model" ${CTEST_ARGS:-})
    ls "$dir"/trace-env/*.json >/dev/null || { echo "scripts/test.sh: SPOOL_TRACE wrote no trace" >&2; exit 1; }
  fi
  times+=("$v $((SECONDS - t_variant))s")
done
echo "=== spool tests: each variant's time: ${times[*]}"
