#!/usr/bin/env bash
# include/spool.h (and include/spool_inline.h with it) compiles with no
# warning under -Wall -Wextra -Wpedantic -Werror as C99, C11, C17 and gnu11, and as C++11, C++17 and C++20, and
# include/spool.hpp as C++17 and C++20 (with -Wshadow too), with gcc and g++
# and with clang and clang++ (each one that is installed; gcc and g++ must
# be).
# Usage: tests/header_modes.sh SOURCE_DIR
set -euo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/h.c" <<'C'
#include <spool.h>
#include <spool.h> /* include guard */
#include <spool_inline.h>
#include <spool_inline.h>
static void part(void *ctx, size_t begin, size_t end) { (void)ctx; (void)begin; (void)end; }
static void half(void *arg) { (void)arg; }
int main(void)
{
    spool_join_inline(half, NULL, half, NULL);
    spool_fork_t f;
    spool_fork_inline(&f, half, NULL);
    if (spool_sync_inline(&f))
        half(NULL);
    spool_for_opts_t opts = {0, 0, SPOOL_FOR_FIXED};
    spool_for(0, 1, &opts, part, NULL);
    return spool_version() == 0 || spool_yield_now() == SPOOL_YIELD_EXECUTED;
}
C
cp "$tmp/h.c" "$tmp/h.cpp"
checked=0
try() { # compiler, std, file
  command -v "$1" >/dev/null 2>&1 || { [ "$1" = gcc ] || [ "$1" = g++ ]; } || return 0
  if ! "$1" -std="$2" -Wall -Wextra -Wpedantic -Werror -I "$src/include" -c "$3" -o "$tmp/h.o"; then
    echo "header_modes: spool.h fails with $1 -std=$2" >&2
    exit 1
  fi
  checked=$((checked + 1))
}
for cc in gcc clang; do
  for std in c99 c11 c17 gnu11; do try $cc $std "$tmp/h.c"; done
done
for cxx in g++ clang++; do
  for std in c++11 c++17 c++20; do try $cxx $std "$tmp/h.cpp"; done
done
# Each header that spool.h includes also compiles when included first.
printf '#include <spool_loop.h>\nint main(void) { spool_for_opts_t o = {0, 0, 0}; return spool_version() == 0 && o.min_len == 0; }\n' >"$tmp/loop.c"
printf '#include <spool_task.h>\nint main(void) { spool_task_t *t = NULL; return spool_version() == 0 && t == NULL; }\n' >"$tmp/task.c"
printf '#include <spool_trace.h>\nint main(void) { spool_worker_stats_t st = {0}; return spool_version() == 0 && st.steals == 0; }\n' >"$tmp/trace.c"
printf '#include <spool_broadcast.h>\nstatic void b(void *c, unsigned i, unsigned n) { (void)c; (void)i; (void)n; }\nint main(void) { return spool_broadcast(b, NULL); }\n' >"$tmp/broadcast.c"
for f in loop task trace broadcast; do
  for cc in gcc clang; do try $cc c11 "$tmp/$f.c"; done
done
# spool_typed.h (C11 and later, gcc and clang): a task of each kind, with
# -Wshadow -Wstrict-prototypes -Wmissing-prototypes too.
cat >"$tmp/typed.c" <<'C'
#include <spool_typed.h>
#include <spool_typed.h>
SPOOL_TASK_DECL_1(long, fib, long);
SPOOL_TASK_IMPL_1(long, fib, long, n)
{
    if (n < 2)
        return n;
    SPOOL_SPAWN(fib, n - 2);
    long a = SPOOL_CALL(fib, n - 1);
    return a + SPOOL_SYNC(fib);
}
SPOOL_VOID_TASK_0(nothing) {}
int main(void)
{
    SPOOL_RUN(nothing);
    return SPOOL_RUN(fib, 10) == 55 ? 0 : 1;
}
C
for cc in gcc clang; do
  for std in c11 c17 gnu11; do
    command -v $cc >/dev/null 2>&1 || [ $cc = gcc ] || continue
    if ! $cc -std=$std -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
         -Werror -I "$src/include" -c "$tmp/typed.c" -o "$tmp/typed.o"; then
      echo "header_modes: spool_typed.h fails with $cc -std=$std" >&2
      exit 1
    fi
    checked=$((checked + 1))
  done
done
# spool.hpp: C++17 and C++20, with -Wshadow too.
cat >"$tmp/hpp.cpp" <<'CPP'
#include <spool.hpp>
#include <spool.hpp>
int main()
{
    long a = 0, b = 0;
    spool::join([&] { a = 1; }, [&] { b = 2; });
    return a + b == 3 ? 0 : 1;
}
CPP
# Each header that spool.hpp includes also compiles when included first.
printf '#include <spool_loop.hpp>\nint main() { return spool::find_first(0, 4, [](size_t i) { return i == 2; }) == 2 ? 0 : 1; }\n' >"$tmp/loop.cpp"
printf '#include <spool_task.hpp>\nint main() { spool::task t; spool::pool p(1); return p.num_threads() == 1 ? 0 : 1; }\n' >"$tmp/task.cpp"
for f in hpp loop task; do
  for cxx in g++ clang++; do
    command -v $cxx >/dev/null 2>&1 || [ $cxx = g++ ] || continue
    for std in c++17 c++20; do
      if ! $cxx -std=$std -Wall -Wextra -Wpedantic -Wshadow -Werror -I "$src/include" \
           -c "$tmp/$f.cpp" -o "$tmp/hpp.o"; then
        echo "header_modes: $f.cpp (spool.hpp) fails with $cxx -std=$std" >&2
        exit 1
      fi
      checked=$((checked + 1))
    done
  done
done
# spool_typed.h as C++17 and C++20 (g++ and clang++): the same tasks; a
# task of a type that is not trivially copyable fails, naming the task;
# C++14 fails, saying what is needed.
cp "$tmp/typed.c" "$tmp/typed.cpp"
sed -i 's/int main(void)/int main()/' "$tmp/typed.cpp"
printf '#include <string>\n#include <spool_typed.h>\nSPOOL_TASK_1(int, len_of, std::string, s) { return (int)s.size(); }\nint main() { return SPOOL_RUN(len_of, std::string("ab")); }\n' >"$tmp/typed_string.cpp"
for cxx in g++ clang++; do
  command -v $cxx >/dev/null 2>&1 || [ $cxx = g++ ] || continue
  for std in c++17 c++20; do
    if ! $cxx -std=$std -Wall -Wextra -Wpedantic -Wshadow -Werror -I "$src/include" \
         -c "$tmp/typed.cpp" -o "$tmp/typed.o"; then
      echo "header_modes: spool_typed.h fails with $cxx -std=$std" >&2
      exit 1
    fi
    checked=$((checked + 1))
  done
  if $cxx -std=c++17 -I "$src/include" -c "$tmp/typed_string.cpp" -o "$tmp/typed.o" \
       2>"$tmp/typed.err"; then
    echo "header_modes: a typed task of std::string compiled with $cxx" >&2
    exit 1
  fi
  grep -q "len_of: a typed task's parameters and result must be trivially copyable" "$tmp/typed.err" ||
    { cat "$tmp/typed.err" >&2; echo "header_modes: a typed task of std::string: the error does not name it" >&2; exit 1; }
  if $cxx -std=c++14 -I "$src/include" -c "$tmp/typed.cpp" -o "$tmp/typed.o" 2>"$tmp/typed.err"; then
    echo "header_modes: spool_typed.h compiled with $cxx -std=c++14" >&2
    exit 1
  fi
  grep -q "spool_typed.h in C++ needs C++17" "$tmp/typed.err" ||
    { cat "$tmp/typed.err" >&2; echo "header_modes: spool_typed.h in C++14: the error does not say so" >&2; exit 1; }
done
# SPOOL_SPAWN outside a task body: the compiler's error says what is wrong.
printf '#include <spool_typed.h>\nSPOOL_TASK_1(int, f, int, n) { return n; }\nint main(void) { SPOOL_SPAWN(f, 1); return SPOOL_SYNC(f); }\n' >"$tmp/typed.c"
if gcc -std=c11 -I "$src/include" -c "$tmp/typed.c" -o "$tmp/typed.o" 2>"$tmp/typed.err"; then
  echo "header_modes: SPOOL_SPAWN outside a task body compiled" >&2
  exit 1
fi
grep -q "SPOOL_SPAWN_CALL_SYNC_need_a_SPOOL_TASK_body" "$tmp/typed.err" ||
  { cat "$tmp/typed.err" >&2; echo "header_modes: SPOOL_SPAWN outside a task body: the error does not say so" >&2; exit 1; }
echo "header_modes: spool.h and spool.hpp clean in $checked compiler/standard pairs"
