#!/usr/bin/env bash
# Builds spool and runs the whole test suite three times: a normal build,
# -fsanitize=thread and -fsanitize=address,undefined.  On Debian, run as
# root, it first installs whatever the build and the tests need and lack.
#
#   scripts/test.sh            everything (what CI runs)
#   scripts/test.sh plain      one variant: plain, thread or address,undefined
#
# Environment: SPOOL_TEST_SCALE multiplies stress iteration counts;
# CTEST_ARGS adds ctest arguments (e.g. "--repeat until-fail:20").
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v make >/dev/null 2>&1 || need+=(make)
command -v c++ >/dev/null 2>&1 || need+=(g++)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
command -v spin >/dev/null 2>&1 || need+=(spin)
[ -e /usr/include/cmocka.h ] || need+=(libcmocka-dev)
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
[ "${variants[0]}" = all ] && variants=(plain thread address,undefined)

jobs=$(nproc 2>/dev/null || echo 2)
for v in "${variants[@]}"; do
  case "$v" in
    plain) dir=build; sanitize="" ;;
    thread) dir=build-tsan; sanitize=thread ;;
    address,undefined) dir=build-asan; sanitize=address,undefined ;;
    *) echo "scripts/test.sh: unknown variant '$v'" >&2; exit 2 ;;
  esac
  echo "=== spool tests: $v ($dir)"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPOOL_SANITIZE="$sanitize" >/dev/null
  cmake --build "$dir" -j "$jobs"
  # shellcheck disable=SC2086
  (cd "$dir" && ctest --output-on-failure -j "$jobs" ${CTEST_ARGS:-})
done
