#!/usr/bin/env bash
# Model-checks src/sleep/sleep.md's protocol with spin (model/sleep.pml), and the
# lock latch of outside waiters (model/lock_latch.pml):
#  - the protocol as built: no invalid end state (no lost wake-up, no
#    deadlock) and no assertion failure, over the whole state space;
#  - the same with a broadcast (-DBROADCAST);
#  - the same with worker 0 holding a private job of the split deque
#    (-DSPLIT), published on demand;
#  - the same with worker 1 claimed for a lend (-DLEND, scheduler/lend.md),
#    and the final check without the dock (-DNO_LEND_CHECK), which spin
#    must find;
#  - a fresh worker counted idle twice (-DFRESH_COUNTED_TWICE): a poster
#    then takes a sleeping pool for one with an idle searcher and wakes
#    no one: spin must find the lost wake-up;
#  - with each deliberate bug (-DNO_FINAL_CHECK, -DNO_JEC_BUMP, and
#    -DNO_BCAST_FINAL_CHECK with a broadcast): spin must find the lost
#    wake-up, else the model is too weak to trust;
#  - the isolated waiter's sleep (model/isolate.pml): as built, and with
#    each of its deliberate bugs, which spin must find;
#  - the caller slot's hand-over (model/caller.pml): as built, and with each
#    of its deliberate bugs, which spin must find;
#  - the wait layer's joint invariant (model/wait.pml, src/scheduler/wait.md): as
#    built, and with one deliberate bug per mechanism, which spin must find.
#
# Bounds.  The largest state spaces (the sleep protocol with two injected
# jobs, and with a broadcast beside an injected job) take minutes each; the
# quick bounds (one injected job fewer) take seconds and still reject every
# deliberate bug.  The full bounds run with --full, and also without it
# whenever the modelled sources changed since the last full run: a full
# run that passes writes their hash to model/spin.full (commit it), and a
# run without --full compares.
#
# Usage: model/check.sh [--full | --quick] [WORKDIR]
#   --quick: the quick bounds even if the sources changed (a local check)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mode=auto
case "${1:-}" in
  --full) mode=full; shift ;;
  --quick) mode=quick; shift ;;
esac
# The modelled sources: the models, this script, and the code they model.
sources_hash() {
  (cd "$root" && cat model/*.pml model/check.sh src/sleep/sleep.c src/sleep/sleep.h \
     src/sleep/latch.c src/sleep/latch.h src/scheduler/latch_set.c \
     src/pool/caller.c src/pool/caller.h src/scheduler/caller_slot.h \
     src/scheduler/wait.c src/scheduler/wait.h src/scheduler/lend.c src/scheduler/lend.h |
     sha256sum | cut -d' ' -f1)
}
hash=$(sources_hash)
if [ "$mode" = auto ]; then
  if [ "$(cat "$here/spin.full" 2>/dev/null)" = "$hash" ]; then
    mode=quick
  else
    mode=full
    echo "model: the modelled sources changed since the last full run (model/spin.full): full bounds"
  fi
fi
# The sleep protocol's bounds: plain, with a broadcast, with the split deque.
if [ "$mode" = full ]; then
  plain="" bcast="-DBROADCAST -DINJECT=1" split="-DSPLIT" lend="-DLEND -DINJECT=1"
else
  plain="-DINJECT=1" bcast="-DBROADCAST -DINJECT=0" split="-DSPLIT -DINJECT=1" lend="-DLEND -DINJECT=0"
fi
echo "model: $mode bounds"
t_start=$SECONDS
work=${1:-$(mktemp -d)}
mkdir -p "$work"
cd "$work"
cp "$here/sleep.pml" "$here/lock_latch.pml" "$here/isolate.pml" "$here/caller.pml" \
   "$here/wait.pml" .
model=sleep.pml

verify() { # $1: name, $2: spin -D flags; prints pan's summary, leaves it in pan.out
  rm -f pan pan.* ./*.trail
  local t0=$SECONDS
  spin -a $2 "$model" >/dev/null
  gcc -O2 -DSAFETY -DCOLLAPSE -o pan pan.c
  ./pan -m1000000 > pan.out 2>&1 || true
  local states depth
  states=$(awk '/states, stored/{print $1; exit}' pan.out)
  depth=$(grep -o 'depth reached [0-9]*' pan.out | awk '{print $3}')
  errors=$(grep -o 'errors: [0-9]*' pan.out | awk '{print $2}')
  echo "model ${model%.pml} ${1}: errors ${errors}, ${states} states, depth ${depth} ($((SECONDS - t0))s)"
  [ -n "$errors" ] || { cat pan.out; echo "model: pan gave no result"; exit 1; }
}

as_built() { # $1: name, $2: flags
  verify "$1" "$2"
  if [ "$errors" != 0 ] || grep -q -e 'Search not completed' -e 'max search depth too small' pan.out; then
    cat pan.out
    echo "model: FAILED: the protocol ($1) has an error or was not fully explored"
    exit 1
  fi
}
must_fail() { # $1: flags of a deliberate bug
  verify "with $1" "$1"
  if [ "$errors" = 0 ]; then
    echo "model: FAILED: spin found no lost wake-up with $1"
    exit 1
  fi
  grep -q 'invalid end state' pan.out
}

as_built "as built" "$plain"
must_fail "$plain -DFRESH_COUNTED_TWICE"
must_fail "$plain -DNO_FINAL_CHECK"
must_fail "$plain -DNO_JEC_BUMP"
# Broadcasts: a broadcast to every worker (beside an injected job in full).
as_built "with a broadcast" "$bcast"
must_fail "$bcast -DNO_BCAST_FINAL_CHECK"

as_built "with a private job (split deque)" "$split"
must_fail "$split -DNO_PUBLISH_POST"
must_fail "$split -DNO_DEMAND"
# A worker lent to a layer above (lend.md, L4): its claim's wake-up.
as_built "with a lend" "$lend"
must_fail "-DLEND -DINJECT=0 -DNO_LEND_CHECK"
# The lock latch of outside waiters: no lost wake-up, no use after free.
model=lock_latch.pml
as_built "as built" ""
for bug in ALWAYS_LOCK NO_BLOCKING_STATE SET_WITHOUT_MUTEX; do
  verify "with -D$bug" "-D$bug"
  if [ "$errors" = 0 ]; then
    echo "model: FAILED: spin found no error in lock_latch.pml with -D$bug"
    exit 1
  fi
done
# The isolated waiter's sleep (isolate.md): no lost wake-up for its region's
# work; it takes no job of another region.
model=isolate.pml
as_built "as built" ""
must_fail -DNO_ISO_WAKE
must_fail -DNO_ISO_FINAL_CHECK
verify "with -DISO_TAKES_ANY" "-DISO_TAKES_ANY"
if [ "$errors" = 0 ] || ! grep -q 'assertion violated' pan.out; then
  echo "model: FAILED: spin found no job of another region taken with -DISO_TAKES_ANY"
  exit 1
fi
# The caller slot's hand-over (caller.md): one holder at a time, every job
# of a holder run once, nothing left when it goes.
model=caller.pml
as_built "as built" ""
for bug in CLAIM_NOT_ATOMIC NO_DRAIN LEAVE_EARLY; do
  verify "with -D$bug" "-D$bug"
  if [ "$errors" = 0 ] || ! grep -q 'assertion violated' pan.out; then
    echo "model: FAILED: spin found no error in caller.pml with -D$bug"
    exit 1
  fi
done
# The wait layer's joint invariant (wait.md): as built, and one deliberate
# bug per row of its table, each a lost job (a waiter asleep for good) or,
# for a filter that takes anything, a region's job refused (assertion).
model=wait.pml
as_built "as built" ""
for bug in POSITION_LABELS NO_COVER TAKES_ANY ISO_REFUSES_BROADCAST NO_X5 NO_POST_WAKE \
           NO_ISO_WAKE LATCH_NO_WAKE NO_SLOT_SERVICE NO_RELEASE_LOOK DROP_NO_COUNT NO_CLAIM; do
  verify "with -D$bug" "-D$bug"
  if [ "$errors" = 0 ] || ! grep -q -e 'invalid end state' -e 'assertion violated' pan.out; then
    echo "model: FAILED: spin found no error in wait.pml with -D$bug"
    exit 1
  fi
done
if [ "$mode" = full ]; then
  echo "$hash" >"$here/spin.full"
  echo "model: wrote model/spin.full"
fi
echo "model: all checks passed ($mode bounds, $((SECONDS - t_start))s)"
