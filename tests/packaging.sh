#!/usr/bin/env bash
# Packaging check, as an outside user would see spool:
#  - install the build tree to a temporary prefix;
#  - build and run the examples with find_package(spool), shared and static;
#  - build and run examples with pkg-config, shared and static;
#  - only spool_* symbols are exported by libspool.so (readelf --dyn-syms);
#  - add_subdirectory(spool) works and builds no tests or benchmarks;
#  - where built, libspool-omp: its installed files, its exports, the three
#    ways in with the installed tree, and pkg-config spool-omp.
# Usage: tests/packaging.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

step() { echo "--- $*"; }
fail() { echo "packaging: $*"; exit 1; }
# (ldd's output is captured first: with pipefail, `ldd | grep -q` fails
# whenever grep's early exit kills ldd with SIGPIPE.)
links_libspool() { local deps; deps=$(ldd "$1"); [[ $deps == *libspool.so* ]]; }

step "install to $prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
pc=$(find "$prefix" -name spool.pc)
libdir=$(dirname "$(dirname "$pc")")
for f in include/spool.h include/spool_loop.h include/spool_task.h include/spool_trace.h include/spool_broadcast.h \
         include/spool_inline.h include/spool_typed.h include/spool.hpp include/spool_loop.hpp include/spool_task.hpp; do test -f "$prefix/$f"; done
test -f "$libdir/libspool.a"
test -L "$libdir/libspool.so"
major=$(awk '/^#define SPOOL_VERSION_MAJOR /{print $3}' "$src/include/spool.h")
minor=$(awk '/^#define SPOOL_VERSION_MINOR /{print $3}' "$src/include/spool.h")
soversion=$major; [ "$major" = 0 ] && soversion=$major.$minor
test -e "$libdir/libspool.so.$soversion"
readelf -d "$libdir/libspool.so" | grep -q "SONAME.*libspool.so.$soversion\]" ||
  fail "libspool.so's SONAME is not libspool.so.$soversion"
test -f "$libdir/cmake/spool/spoolConfig.cmake"
test -f "$libdir/cmake/spool/spoolConfigVersion.cmake"

step "exported symbols"
# Defined and bindable: hidden symbols in the dynamic table (the linker's
# bounds of spool's own sections, job.h and trace.h) bind nothing.
symbols=$(readelf --dyn-syms -W "$libdir/libspool.so" |
          awk '$1 ~ /^[0-9]+:$/ && $7 != "UND" && $5 != "LOCAL" && $6 != "HIDDEN" && $6 != "INTERNAL" {print $8}')
bad=$(grep -v '^spool_' <<<"$symbols" || true)
[ -z "$bad" ] || fail "libspool.so exports non-spool symbols: $bad"
grep -qx spool_join <<<"$symbols" || fail "libspool.so does not export spool_join"
# spool_inline.h's internal names: each carries the one inline ABI version,
# SPOOL_INLINE_ABI, in the header and in the library alike.
abi=$(awk '/^#define SPOOL_INLINE_ABI /{print $3}' "$prefix/include/spool_inline.h")
[ -n "$abi" ] || fail "spool_inline.h defines no SPOOL_INLINE_ABI"
# The other internal names it exports are the hooks libspool-omp uses,
# declared in src/scheduler/lend.h (never installed; doc/design.md).
hooks=$(grep -hE '^SPOOL_API' "$src/src/scheduler/lend.h" | grep -oE 'spool__[a-z0-9_]+ *\(' |
        tr -d ' (' | sort -u)
[ -n "$hooks" ] || fail "src/scheduler/lend.h declares no hooks"
# And the names of the inline ABI before it, kept for programs built
# against spool 0.6 (src/job/abi_v3.h), each of them exported.
kept=$(grep -hE '^SPOOL_API' "$src/src/job/abi_v3.h" | sed -E 's/\(.*//; s/ __attribute__.*//; s/;$//' |
       grep -oE 'spool__[a-z0-9_]+_v3$' | sort -u)
[ -n "$kept" ] || fail "src/job/abi_v3.h declares no names"
for name in $kept; do
  grep -qx "$name" <<<"$symbols" || fail "src/job/abi_v3.h declares $name, libspool.so lacks it"
done
bad=$(grep '^spool__' <<<"$symbols" | grep -v "_v$abi\$" | grep -vxF "$hooks" | grep -vxF "$kept" || true)
[ -z "$bad" ] || fail "libspool.so exports internal names not of inline ABI $abi, kept or hooks: $bad"
for name in $hooks; do
  grep -qx "$name" <<<"$symbols" || fail "scheduler/lend.h declares the hook $name, libspool.so lacks it"
done
header_names=$(cat "$prefix/include/spool_inline.h" "$prefix/include/spool_typed.h" |
               grep -oE 'spool__[a-z0-9_]+_v[0-9]+\b' | sort -u)
bad=$(grep -v "_v$abi\$" <<<"$header_names" || true)
[ -z "$bad" ] || fail "spool_inline.h names not of inline ABI $abi: $bad"
# Every library function and variable the header names is exported (the
# header's static inline helpers are not functions of the library).
for name in $(grep -hE '^SPOOL_API' "$prefix/include/spool_inline.h" "$prefix/include/spool_typed.h" |
              sed -E 's/\(.*//; s/ __attribute__.*//; s/;$//' |
              grep -oE 'spool__[a-z0-9_]+_v[0-9]+$'); do
  grep -qx "$name" <<<"$symbols" || fail "spool_inline.h declares $name, libspool.so lacks it"
done

step "manual pages"
mandir=$prefix/share/man
test -f "$mandir/man3/spool.3" || fail "spool(3) is not installed"
for sym in $(grep -v '^spool__' <<<"$symbols"); do
  test -f "$mandir/man3/$sym.3" || fail "no manual page for $sym"
done
# Every page renders without a warning (.so links resolve from the man root).
for page in "$mandir"/man3/*.3; do
  warnings=$(cd "$mandir" && MANWIDTH=80 man --warnings -E UTF-8 -l "man3/${page##*/}" 2>&1 >/dev/null)
  [ -z "$warnings" ] || fail "man ${page##*/}: $warnings"
done
MANPATH=$mandir man -w spool_join >/dev/null || fail "man spool_join does not find the page"
MANPATH=$mandir man spool_spawn_fifo 2>/dev/null | grep -q "spool_spawn_fifo" ||
  fail "man spool_spawn_fifo does not show the grouped page"

for kind in shared static; do
  step "find_package, $kind"
  static=OFF; [ $kind = static ] && static=ON
  cmake -S "$src/examples" -B "$tmp/ex-$kind" -DCMAKE_PREFIX_PATH="$prefix" \
        -DSPOOL_EXAMPLES_STATIC=$static >/dev/null
  cmake --build "$tmp/ex-$kind" -j 2 >/dev/null
  (cd "$tmp/ex-$kind" && ctest --output-on-failure >/dev/null)
  if [ $kind = static ]; then
    if links_libspool "$tmp/ex-$kind/spool_example_fib"; then fail "static example loads libspool.so"; fi
  else
    links_libspool "$tmp/ex-$kind/spool_example_fib" || fail "shared example does not load libspool.so"
  fi
done

step "pkg-config, shared and static"
export PKG_CONFIG_PATH=$libdir/pkgconfig
want=$(awk '/^#define SPOOL_VERSION_(MAJOR|MINOR|PATCH) /{printf "%s%s", sep, $3; sep="."}' "$src/include/spool.h")
test "$(pkg-config --modversion spool)" = "$want"
cc -std=c11 -D_POSIX_C_SOURCE=200809L -o "$tmp/fib-pc" "$src/examples/fib.c" \
   $(pkg-config --cflags --libs spool) -Wl,-rpath,"$(pkg-config --variable=libdir spool)"
"$tmp/fib-pc" 24 2 >/dev/null
cc -std=c11 -D_POSIX_C_SOURCE=200809L -o "$tmp/sort-pc-static" "$src/examples/quicksort.c" \
   $(pkg-config --cflags spool) "$(pkg-config --variable=libdir spool)/libspool.a" \
   $(pkg-config --libs-only-other spool)
if links_libspool "$tmp/sort-pc-static"; then fail "static pkg-config build loads libspool.so"; fi
"$tmp/sort-pc-static" 100000 >/dev/null
c++ -std=c++17 -o "$tmp/lambdas-pc" "$src/examples/lambdas.cpp" \
   $(pkg-config --cflags --libs spool) -Wl,-rpath,"$(pkg-config --variable=libdir spool)"
"$tmp/lambdas-pc" >/dev/null

step "README.md's example"
awk '/^```c$/ {on = 1; next} on && /^```$/ {exit} on' "$src/README.md" > "$tmp/readme.c"
cc -std=c11 -O2 -Wall -Wextra -Werror -o "$tmp/readme" "$tmp/readme.c" \
   $(pkg-config --cflags --libs spool) -Wl,-rpath,"$(pkg-config --variable=libdir spool)"
"$tmp/readme" >/dev/null || fail "README.md's example gave a wrong result"

step "spool_join_inline, shared and static"
cat > "$tmp/inline.c" <<'C'
#include <pthread.h>
#include <spool_inline.h>
typedef struct { long n, r; } fib_t;
static void fib(void *p)
{
    fib_t *t = p;
    if (t->n < 2) { t->r = t->n; return; }
    fib_t a = {t->n - 1, 0}, b = {t->n - 2, 0};
    spool_join_inline(fib, &a, fib, &b);
    t->r = a.r + b.r;
}
static void *from_a_thread(void *arg)
{
    fib(arg); /* a thread's own copy of the outside-a-pool stand-in */
    return NULL;
}
int main(void)
{
    fib_t t = {24, 0}, u = {23, 0};
    fib(&t); /* outside any pool: through spool_join into the global pool */
    pthread_t thread;
    if (pthread_create(&thread, NULL, from_a_thread, &u) != 0 || pthread_join(thread, NULL) != 0)
        return 2;
    return t.r == 46368 && u.r == 28657 ? 0 : 1;
}
C
cc -std=c11 -O2 -o "$tmp/inline-pc" "$tmp/inline.c" \
   $(pkg-config --cflags --libs spool) -Wl,-rpath,"$(pkg-config --variable=libdir spool)"
links_libspool "$tmp/inline-pc" || fail "shared spool_join_inline build does not load libspool.so"
"$tmp/inline-pc" || fail "spool_join_inline against libspool.so: wrong fib"
cc -std=c11 -O2 -o "$tmp/inline-static" "$tmp/inline.c" $(pkg-config --cflags spool) \
   "$(pkg-config --variable=libdir spool)/libspool.a" $(pkg-config --libs-only-other spool)
"$tmp/inline-static" || fail "spool_join_inline against libspool.a: wrong fib"

step "a program built against spool 0.6 (inline ABI 3: tests/abi_v3/) runs"
cat > "$tmp/v3.c" <<'C'
#include "spool_typed.h" /* 0.6's, and its spool_inline.h */
typedef struct { long n, r; } fib_t;
static void fib(void *p)
{
    fib_t *t = p;
    if (t->n < 2) { t->r = t->n; return; }
    fib_t a = {t->n - 1, 0}, b = {t->n - 2, 0};
    spool_join_inline(fib, &a, fib, &b);
    t->r = a.r + b.r;
}
static void fib_b(void *p);
static long fib_fork(long n)
{
    if (n < 2) return n;
    fib_t b = {n - 2, 0};
    spool_fork_t f;
    spool_fork_inline(&f, fib_b, &b);
    long a = fib_fork(n - 1);
    if (spool_sync_inline(&f)) b.r = fib_fork(n - 2);
    return a + b.r;
}
static void fib_b(void *p) { fib_t *t = p; t->r = fib_fork(t->n); }
SPOOL_TASK_1(long, tfib, long, n)
{
    if (n < 2) return n;
    SPOOL_SPAWN(tfib, n - 2);
    long a = SPOOL_CALL(tfib, n - 1);
    return a + SPOOL_SYNC(tfib);
}
static void forks(void *p) { fib_t *t = p; t->r = fib_fork(t->n); }
int main(void)
{
    fib_t t = {24, 0}, u = {23, 0};
    fib(&t);
    spool_pool_t *pool;
    spool_config_t cfg = SPOOL_CONFIG_INIT;
    cfg.num_threads = 3;
    if (spool_pool_create(&cfg, &pool) != 0) return 2;
    if (spool_pool_install(pool, forks, &u) != 0) return 2;
    long typed = SPOOL_RUN_IN(pool, tfib, 25), outside = SPOOL_RUN(tfib, 22);
    spool_pool_destroy(pool);
    return t.r == 46368 && u.r == 28657 && typed == 75025 && outside == 17711 ? 0 : 1;
}
C
cc -std=c11 -O2 -o "$tmp/v3" -I "$src/tests/abi_v3" "$tmp/v3.c" \
   $(pkg-config --cflags --libs spool) -Wl,-rpath,"$(pkg-config --variable=libdir spool)"
nm "$tmp/v3" | grep -q 'spool__tls_fork_v3' || fail "the 0.6 program does not use inline ABI 3"
"$tmp/v3" || fail "a program built against spool 0.6's headers: wrong results"

if [ "$major" = 0 ] && [ "$minor" -gt 0 ]; then
step "find_package refuses another minor version (0.x: the ABI may change)"
mkdir -p "$tmp/oldminor"
cat > "$tmp/oldminor/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(consumer C)
find_package(spool $major.$((minor - 1)) CONFIG)
if(spool_FOUND)
  message(FATAL_ERROR "spool $major.$minor accepted a request for $major.$((minor - 1))")
endif()
find_package(spool $major.$minor REQUIRED CONFIG)
CMAKE
cmake -S "$tmp/oldminor" -B "$tmp/oldminor/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null ||
  fail "find_package: the version check is wrong (see above)"
fi

step "dlopen: a plugin that uses spool, loaded into a program that does not"
cat > "$tmp/plugin.c" <<'C'
#include <spool_inline.h>
typedef struct { long n, r; } fib_t;
static void fib(void *p)
{
    fib_t *t = p;
    if (t->n < 2) { t->r = t->n; return; }
    fib_t a = {t->n - 1, 0}, b = {t->n - 2, 0};
    spool_join_inline(fib, &a, fib, &b);
    t->r = a.r + b.r;
}
long plugin_fib(long n)
{
    fib_t t = {n, 0};
    fib(&t);
    return t.r;
}
C
cat > "$tmp/host.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    (void)argc;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 2;
    }
    long (*fib)(long) = (long (*)(long))dlsym(h, "plugin_fib");
    return fib != NULL && fib(24) == 46368 ? 0 : 1;
}
C
cc -std=c11 -O2 -fPIC -shared -o "$tmp/libplugin.so" "$tmp/plugin.c" \
   $(pkg-config --cflags --libs spool) -Wl,-rpath,"$(pkg-config --variable=libdir spool)"
cc -std=c11 -O2 -o "$tmp/host" "$tmp/host.c" -ldl
"$tmp/host" "$tmp/libplugin.so" || fail "a dlopen()ed plugin linked with libspool.so failed"

if [ -e "$build/omp/libspool-omp.so" ]; then
step "libspool-omp: installed parts, exports, the three ways in"
test -e "$libdir/libspool-omp.so.$soversion" || fail "libspool-omp.so.$soversion is not installed"
for name in libgomp.so.1 libomp.so.5 libomp.so; do
  test -e "$libdir/spool-omp/$name" || fail "<libdir>/spool-omp/$name is not installed"
done
test -x "$prefix/bin/spool-omp" || fail "bin/spool-omp is not installed"
test -f "$libdir/pkgconfig/spool-omp.pc" || fail "spool-omp.pc is not installed"
# getenv and secure_getenv: libc's, so that a libgomp loaded beside a
# preloaded libspool-omp does not read the OMP_ variables (omp/getenv.c).
bad=$(nm -D --defined-only "$libdir/libspool-omp.so" | awk '$2 != "A" {print $3}' |
      grep -vE '^(GOMP|omp)_|^(__kmpc|kmp)_.*@@VERSION$|^ompc_.*@VERSION$|^(getenv@@GLIBC_2\.2\.5|secure_getenv@@GLIBC_2\.17)$' || true)
[ -z "$bad" ] || fail "libspool-omp.so exports other than GOMP_, omp_, __kmpc_ and kmp_ names: $bad"
# A program built and linked the usual way, with libgomp.
cc -O2 -fopenmp -o "$tmp/omp-way" "$src/tests/omp/omp_way.c" -ldl
env -u LD_LIBRARY_PATH "$src/tests/omp/ways.sh" "$tmp/omp-way" "$libdir/libspool-omp.so" \
    "$libdir/spool-omp" "$prefix/bin/spool-omp" >/dev/null || fail "a way in failed (see above)"
# A program clang built and linked with libomp, where clang and its omp.h
# are (tests/omp/CMakeLists.txt fails the configuration in CI without them).
if echo '#include <omp.h>' | clang -fopenmp -x c -fsyntax-only - >/dev/null 2>&1; then
  clang -O2 -fopenmp -o "$tmp/kmp-way" "$src/tests/omp/kmp_way.c" -ldl
  env -u LD_LIBRARY_PATH "$src/tests/omp/ways.sh" "$tmp/kmp-way" "$libdir/libspool-omp.so" \
      "$libdir/spool-omp" "$prefix/bin/spool-omp" libomp >/dev/null ||
    fail "a way in failed for a program clang built (see above)"
fi
# Built with pkg-config's spool-omp in libgomp's place.
cc -O2 $(pkg-config --cflags spool-omp) -o "$tmp/openmp-pc" "$src/examples/openmp.c" \
   $(pkg-config --libs spool-omp) -lm -Wl,-rpath,"$libdir"
deps=$(ldd "$tmp/openmp-pc")
[[ $deps == *libspool-omp.so* ]] || fail "pkg-config spool-omp: the program does not load libspool-omp"
"$tmp/openmp-pc" 100000 >/dev/null || fail "pkg-config spool-omp: examples/openmp.c failed"
# README's command: one compile-and-link line.
cc -O2 -fopenmp -o "$tmp/openmp-readme" "$src/examples/openmp.c" \
   $(pkg-config --cflags --libs spool-omp) -lm -Wl,-rpath,"$libdir"
"$tmp/openmp-readme" 100000 >/dev/null || fail "README's pkg-config line: examples/openmp.c failed"
# spool::omp alone makes an OpenMP program: its region has two threads.
mkdir -p "$tmp/omp-cmake"
cat > "$tmp/omp-cmake/team.c" <<'C'
#include <omp.h>
#include <stdio.h>
int main(void)
{
    int n = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    n = omp_get_num_threads();
    printf("%d\n", n);
    return n == 2 ? 0 : 1;
}
C
cat > "$tmp/omp-cmake/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(omp_consumer C)
find_package(spool REQUIRED CONFIG)
add_executable(team team.c)
target_link_libraries(team PRIVATE spool::omp)
CMAKE
cmake -S "$tmp/omp-cmake" -B "$tmp/omp-cmake/build" -DCMAKE_PREFIX_PATH="$prefix" \
      -DCMAKE_BUILD_RPATH="$libdir" >/dev/null
cmake --build "$tmp/omp-cmake/build" >/dev/null
"$tmp/omp-cmake/build/team" >/dev/null || fail "spool::omp: a region ran without its threads (no -fopenmp)"
fi

step "add_subdirectory"
mkdir -p "$tmp/sub"
cat > "$tmp/sub/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(consumer C)
add_subdirectory("$src" spool)
add_executable(app "$src/examples/fib.c")
target_compile_definitions(app PRIVATE _POSIX_C_SOURCE=200809L)
target_link_libraries(app PRIVATE spool::spool_static)
CMAKE
cmake -S "$tmp/sub" -B "$tmp/sub/build" >/dev/null
cmake --build "$tmp/sub/build" -j 2 >/dev/null
"$tmp/sub/build/app" 22 2 >/dev/null
extra=$(find "$tmp/sub/build" -name 'test_deque' -o -name 'spool-peer')
[ -z "$extra" ] || fail "add_subdirectory built spool's tests or benchmarks: $extra"
echo "packaging: all checks passed"
