#!/usr/bin/env bash
# The manual pages as built (MAN_DIR/man3, made by man/gen-man.sh): every
# public function of the installed C headers, every SPOOL_ macro of
# spool_typed.h and every inline function of spool_inline.h has a page
# that `man NAME` finds with MANPATH=MAN_DIR, and every page renders
# without a warning there (its .so link resolves).  The check first makes
# sure it fails on a copy with one page removed.
#   tests/man_pages.sh SOURCE_DIR MAN_DIR
set -euo pipefail
src=$1
man_dir=$2
command -v man >/dev/null || { echo "man_pages.sh: man (man-db) is not installed" >&2; exit 1; }

# The names a page must exist for.
names() {
  cd "$src/include"
  grep -hoE '^SPOOL_API [^(]*\bspool_[a-z0-9_]+\(' spool.h spool_loop.h spool_task.h spool_trace.h \
       spool_broadcast.h | grep -oE 'spool_[a-z0-9_]+\($' | tr -d '('
  grep -oE '^#define SPOOL_[A-Z][A-Z0-9_]*' spool_typed.h | sed 's/^#define //' | grep -v '_H$'
  grep -oE '^(static inline|SPOOL__INLINE)[^(]* spool_[a-z_]+\(' spool_inline.h |
    grep -oE 'spool_[a-z_]+\($' | tr -d '('
  echo spool.hpp
}

# check DIR: 0 if every name has a page that man finds and renders.
check() {
  local dir=$1 missing=0
  for n in $(names | sort -u); do
    if ! MANPATH=$dir man -w "$n" >/dev/null 2>&1; then
      echo "man_pages.sh: no manual page for $n" >&2
      missing=1
    fi
  done
  for page in "$dir"/man3/*.3; do
    local w
    w=$(cd "$dir" && MANWIDTH=80 man --warnings -E UTF-8 -l "man3/${page##*/}" 2>&1 >/dev/null)
    [ -z "$w" ] || { echo "man_pages.sh: ${page##*/}: $w" >&2; missing=1; }
  done
  return $missing
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R "$man_dir/man3" "$tmp/man3"
rm -f "$tmp/man3/SPOOL_RUN.3"
if check "$tmp" 2>/dev/null; then
  echo "man_pages.sh: the check passed with SPOOL_RUN's page removed" >&2
  exit 1
fi
check "$man_dir"
MANPATH=$man_dir man SPOOL_SPAWN 2>/dev/null | grep -q "SPOOL_SPAWN(NAME, args...)" ||
  { echo "man_pages.sh: man SPOOL_SPAWN does not show spool_typed.h's page" >&2; exit 1; }
# libspool-omp's pages, where it is built: the command and the library.
if [ -e "$man_dir/man3/libspool-omp.3" ]; then
  for page in man1/spool-omp.1 man3/libspool-omp.3; do
    [ -e "$man_dir/$page" ] || { echo "man_pages.sh: no $page" >&2; exit 1; }
    w=$(cd "$man_dir" && MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null)
    [ -z "$w" ] || { echo "man_pages.sh: $page: $w" >&2; exit 1; }
  done
  MANPATH=$man_dir man spool-omp 2>/dev/null | grep -q "in place of libgomp" ||
    { echo "man_pages.sh: man spool-omp does not show its page" >&2; exit 1; }
  MANPATH=$man_dir man 3 libspool-omp 2>/dev/null | grep -q "Inside spool jobs" ||
    { echo "man_pages.sh: man libspool-omp does not show its page" >&2; exit 1; }
fi
echo "man_pages.sh: $(names | sort -u | wc -l) names, each with a page that renders"
