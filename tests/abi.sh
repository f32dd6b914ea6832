#!/usr/bin/env bash
# The built libspool.so against the ABI baseline in abi/libspool.abi
# (libabigail's abidiff; only what include/'s headers declare counts, and
# the exports kept for programs built against 0.6, src/job/abi_v3.h).  Any
# difference fails: an addition as much as a break, so that the baseline is
# always the ABI of the tree.  Update it with scripts/abi-update.sh, which
# refuses an incompatible change unless the SONAME changed with it (README,
# "ABI").
# Usage: tests/abi.sh SOURCE_DIR LIBRARY
set -uo pipefail
src=$1
lib=$2
abidiff --headers-dir2 "$src/include" --header-file2 "$src/src/job/abi_v3.h" \
  "$src/abi/libspool.abi" "$lib"
rc=$?
if [ $rc -ne 0 ]; then
  echo "abi: $lib differs from abi/libspool.abi (abidiff status $rc:" \
       "$(( rc & 4 ? 1 : 0 )) = ABI change, $(( rc & 8 ? 1 : 0 )) = incompatible)."
  echo "abi: if the change is meant, run scripts/abi-update.sh (and for an incompatible"
  echo "abi: change bump SPOOL_VERSION_MINOR before 1.0, MAJOR after)."
  exit 1
fi
echo "abi: libspool.so matches abi/libspool.abi"
