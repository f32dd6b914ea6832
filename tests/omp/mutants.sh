#!/usr/bin/env bash
# Each synchronisation construct's test must fail when the construct does
# nothing: builds libspool-omp again with one construct made a no-op (a
# copy of omp/ with one exact replacement), runs the test that covers it
# against that copy (LD_PRELOAD: first in the lookup, before the library
# the test links), and fails if the test still passes.
#   tests/omp/mutants.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "mutants.sh: $*" >&2; exit 1; }

# mutant NAME FILE OLD NEW TEST [ENV...]: OLD must occur once in omp/FILE.
mutant() {
  local name=$1 file=$2 old=$3 new=$4 test=$5
  shift 5
  rm -rf "$tmp/omp" && cp -R "$src/omp" "$tmp/omp"
  python3 - "$tmp/omp/$file" "$old" "$new" <<'PY' || fail "$name: the text to replace is not in $file once"
import sys
path, old, new = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path).read()
if text.count(old) != 1:
    sys.exit(1)
open(path, "w").write(text.replace(old, new))
PY
  gcc -O2 -g -fPIC -shared -fvisibility=hidden -D_GNU_SOURCE -I "$src/include" -I "$src/src" \
      -I "$tmp/omp" -o "$tmp/libspool-omp.so" "$tmp"/omp/*.c \
      -Wl,--version-script="$tmp/omp/libgomp.map" -L "$build" -l:libspool.so -pthread \
      -Wl,-rpath,"$build" ||
    fail "$name: the copy does not build"
  local rc=0
  env OMP_NUM_THREADS=4 "$@" LD_PRELOAD="$tmp/libspool-omp.so" timeout 30 \
    "$build/tests/omp/$test" >"$tmp/out" 2>&1 || rc=$?
  if [ $rc = 0 ]; then
    cat "$tmp/out" >&2
    fail "$name: $test passed with the construct made a no-op"
  fi
  local failed
  failed=$(grep -E '^\[  FAILED  \] test_' "$tmp/out" | awk '{print $4}' | sort -u | tr '\n' ' ' || true)
  if [ -z "$failed" ]; then
    # No test reported: it crashed or hung (a barrier's count gone wrong).
    failed=$(grep -E '^\[ RUN      \] test_' "$tmp/out" | tail -1 | awk '{print $4}' || true)
    [ -n "$failed" ] || { cat "$tmp/out" >&2; fail "$name: $test failed before any test ran"; }
    echo "mutants.sh: $name: $test $([ $rc = 124 ] && echo hangs || echo "exits $rc") in $failed, as it must fail"
    return
  fi
  echo "mutants.sh: $name: $test fails in ${failed% }, as it must"
}

# The copy as it is must pass: a failure below is then the mutant's.
mutant_none() {
  rm -rf "$tmp/omp" && cp -R "$src/omp" "$tmp/omp"
  gcc -O2 -g -fPIC -shared -fvisibility=hidden -D_GNU_SOURCE -I "$src/include" -I "$src/src" \
      -I "$tmp/omp" -o "$tmp/libspool-omp.so" "$tmp"/omp/*.c \
      -Wl,--version-script="$tmp/omp/libgomp.map" -L "$build" -l:libspool.so -pthread \
      -Wl,-rpath,"$build" || fail "the copy does not build"
  local tests=(test_omp_sync test_omp_loop test_omp_parallel test_omp_task test_omp_wait)
  [ -x "$build/tests/omp/test_omp_kmp_door" ] && tests+=(test_omp_kmp_door test_omp_kmp_waits test_omp_kmp_private)
  for t in "${tests[@]}"; do
    local n=4
    [ "$t" = test_omp_wait ] && n=2 # its ctest environment
    env OMP_NUM_THREADS=$n LD_PRELOAD="$tmp/libspool-omp.so" timeout 120 "$build/tests/omp/$t" \
      >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; fail "$t fails with the copy as it is"; }
  done
  echo "mutants.sh: the copy as it is passes"
}
mutant_none

mutant barrier parallel.c \
  'SPOOL_OMP_API void GOMP_barrier(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    if (thr->ts.team != NULL)' 'SPOOL_OMP_API void GOMP_barrier(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    if (0)' test_omp_sync
mutant critical lock.c \
  'spool__omp_lock_word(&critical_lock);' '(void)0;' test_omp_sync
mutant critical-named lock.c \
  'spool__omp_lock_word((_Atomic int *)(void *)pptr);' '(void)pptr;' test_omp_sync
mutant atomic lock.c \
  'spool__omp_lock_word(&atomic_lock);' '(void)0;' test_omp_sync
mutant single work.c \
  'return atomic_compare_exchange_strong_explicit(&team->single_count, &mine, mine + 1,' \
  'return 1 || atomic_compare_exchange_strong_explicit(&team->single_count, &mine, mine + 1,' \
  test_omp_sync
mutant copyprivate work.c \
  '    /* The executing thread stores its data, then waits here too. */
    spool__omp_barrier_wait(thr->ts.team, thr->ts.id);' '' test_omp_sync
mutant lock lock.c \
  'SPOOL_OMP_API void omp_set_lock(omp_lock_t *lock)
{
    spool__omp_lock_word(word(lock));' 'SPOOL_OMP_API void omp_set_lock(omp_lock_t *lock)
{
    atomic_store(word(lock), 1);' test_omp_sync
mutant nest-lock lock.c \
  '    spool__omp_lock_word(&l->word);
    atomic_store_explicit(&l->owner, me, memory_order_relaxed);' \
  '    atomic_store(&l->word, 1);
    atomic_store_explicit(&l->owner, me, memory_order_relaxed);' test_omp_sync
mutant ordered loop.c \
  '    if (!my_turn(&t))' '    if (0)' test_omp_loop
mutant doacross doacross.c \
  '    if (!posted(&s)) {' '    if (0) {' test_omp_loop
mutant loop-end-barrier loop_api.c \
  'SPOOL_OMP_API void GOMP_loop_end(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_loop_leave(thr);
    if (thr->ts.team != NULL)' 'SPOOL_OMP_API void GOMP_loop_end(void)
{
    spool__omp_thread_t *thr = spool__omp_thread();
    spool__omp_loop_leave(thr);
    if (0)' test_omp_loop
mutant region-end team.c \
  '    spool__omp_join_wait(team);' '' test_omp_parallel
# The waits for tasks.
mutant taskwait task_queue.c \
  '        spool__omp_task_wait_children(thr, cur);' '        (void)thr;' test_omp_task
mutant taskgroup-end taskloop.c \
  '    spool__omp_task_wait_count(thr, &g->count);' '' test_omp_task
mutant barrier-tasks barrier.c \
  'if (atomic_fetch_add_explicit(&b->state, 1, memory_order_acq_rel) + 1 == n) {' \
  'if ((atomic_fetch_add_explicit(&b->state, 1, memory_order_acq_rel) & 0xffffffffu) + 1 == n) {' \
  test_omp_task
mutant region-end-tasks task_queue.c \
  '    region_end_t r = {team, tk};' '    return;
    region_end_t r = {team, tk};' test_omp_task
mutant depend-wait depend.c \
  '    return atomic_fetch_sub_explicit(&d->npred, 1, memory_order_acq_rel) != 1;' \
  '    (void)atomic_fetch_sub_explicit(&d->npred, 1, memory_order_acq_rel);
    return false;' test_omp_task
mutant detach task.c \
  '    if (atomic_load_explicit(&n->detach, memory_order_relaxed) != 0 &&' \
  '    if (0 &&' test_omp_task
# The __kmpc_ door's constructs (a program clang built), where it is.
if [ -x "$build/tests/omp/test_omp_kmp_door" ]; then
  mutant kmp-barrier kmp_parallel.c \
    '    if (thr->ts.team != NULL)
        spool__omp_barrier_wait(thr->ts.team, thr->ts.id);
}' '    (void)thr;
}' test_omp_kmp_door
  mutant kmp-critical kmp_parallel.c \
    '    spool__omp_lock_word((_Atomic int *)(void *)crit);' '    (void)crit;' test_omp_kmp_door
  mutant kmp-reduce kmp_parallel.c \
    '        spool__omp_lock_word((_Atomic int *)(void *)lck);' '        (void)lck;' test_omp_kmp_door
  mutant kmp-copyprivate kmp_parallel.c \
    '        ws->copyprivate = cpy_data;
    spool__omp_barrier_wait(team, thr->ts.id);' '        ws->copyprivate = cpy_data;' \
    test_omp_kmp_door
  mutant kmp-ordered kmp_parallel.c '    GOMP_ordered_start();' '' test_omp_kmp_door
  mutant kmp-taskwait kmp_task.c '    GOMP_taskwait();' '' test_omp_kmp_door
  mutant kmp-taskgroup kmp_taskred.c \
    '    GOMP_taskgroup_end();
    registrations_end(mine, stop);' '    registrations_end(mine, stop);' test_omp_kmp_door
  mutant kmp-depend kmp_task.c \
    '    unsigned flags = gomp_flags(h, new_task, &priority) | SPOOL_OMP_TASK_DEPEND;' \
    '    unsigned flags = gomp_flags(h, new_task, &priority);' test_omp_kmp_door
  mutant kmp-doacross kmp_doacross.c \
    '        spool__omp_wait(thr->ts.team, thr->ts.id, s.word, posted, &s);' '        (void)s;' \
    test_omp_kmp_waits
  mutant kmp-taskred-end kmp_taskred.c \
    'memory_order_acq_rel) + 1 == sh->nth)' 'memory_order_acq_rel) == 0)' test_omp_kmp_waits
  mutant kmp-detach kmp_task.c '    if (h->detached)
        flags |= SPOOL_OMP_TASK_DETACH;' '' test_omp_kmp_waits
  mutant kmp-lock kmp_private.c \
    'LOCK_CALL(__kmpc_set_lock, omp_set_lock((omp_lock_t *)(void *)lock))' \
    'LOCK_CALL(__kmpc_set_lock, (void)lock)' test_omp_kmp_private
else
  echo "mutants.sh: no test_omp_kmp_door (clang not found): the __kmpc_ door's mutants are not run"
fi
# Waits that never sleep (they spin until ready): the CPU they burn while
# another thread holds them up fails test_omp_wait.
mutant park-spins barrier.c \
  '        spool__omp_park_wait(&m->park);
    /* Relaxed: counts that only make the wakers look, and a hint. */' \
  '        (void)0;
    /* Relaxed: counts that only make the wakers look, and a hint. */' test_omp_wait OMP_NUM_THREADS=2
mutant outside-wait-spins wait.c \
  '            spool__park_wait(&w.park);' '            (void)0;' test_omp_wait OMP_NUM_THREADS=2
mutant reserve-spins reserve_post.h \
  '        spool__park_wait(&r->park);' '        (void)0;' test_omp_wait OMP_NUM_THREADS=2
echo "mutants.sh: every construct made a no-op fails its test"
