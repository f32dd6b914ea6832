#!/usr/bin/env bash
# Rewrites the ABI baseline abi/libspool.abi from a plain gcc build (default
# build/), after checking the change against the policy (README, "ABI"): an
# incompatible change needs a new SONAME (a new minor version before 1.0, a
# new major version after), else the baseline is left alone and this fails.
#   scripts/abi-update.sh [BUILD_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
lib=$(readlink -f "${1:-build}/libspool.so") || { echo "abi-update: no libspool.so in ${1:-build}" >&2; exit 2; }
old_soname=$(grep -o "soname='[^']*'" abi/libspool.abi | head -1 | cut -d"'" -f2)
new_soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
report=$(abidiff --headers-dir2 include --header-file2 src/job/abi_v3.h abi/libspool.abi "$lib")
rc=$?
# abidiff's status says "incompatible" (8) only for removals; a changed
# layout (a field inserted in spool_config_t, say) is status 4.  So only a
# change that adds functions or variables and removes or changes none is
# compatible here.
breaking=$(grep -E '^(Functions|Variables) changes summary' <<<"$report" |
           grep -oE '[0-9]+ (Removed|Changed)' | awk '{n += $1} END {print n + 0}')
if { (( rc & 8 )) || [ "$breaking" -gt 0 ]; } && [ "$old_soname" = "$new_soname" ]; then
  echo "$report" >&2
  echo "abi-update: a change that removes or changes ABI, with the SONAME unchanged" >&2
  echo "abi-update: ($new_soname): bump the version (spool.h) first; baseline not updated" >&2
  exit 1
fi
abidw --no-corpus-path --headers-dir include --header-file src/job/abi_v3.h "$lib" > abi/libspool.abi
echo "abi-update: abi/libspool.abi rewritten from $lib ($new_soname; abidiff status was $rc)"
