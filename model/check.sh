#!/usr/bin/env bash
# Model-checks src/sleep.md's protocol with spin (model/sleep.pml), and the
# lock latch of outside waiters (model/lock_latch.pml):
#  - the protocol as built: no invalid end state (no lost wake-up, no
#    deadlock) and no assertion failure, over the whole state space;
#  - the same with a broadcast (-DBROADCAST);
#  - the same with worker 0 holding a private job of the split deque
#    (-DSPLIT), published on demand;
#  - a fresh worker counted idle twice (-DFRESH_COUNTED_TWICE): a poster
#    then takes a sleeping pool for one with an idle searcher and wakes
#    no one: spin must find the lost wake-up;
#  - with each deliberate bug (-DNO_FINAL_CHECK, -DNO_JEC_BUMP, and
#    -DNO_BCAST_FINAL_CHECK with a broadcast): spin must find the lost
#    wake-up, else the model is too weak to trust;
#  - the isolated waiter's sleep (model/isolate.pml): as built, and with
#    each of its deliberate bugs, which spin must find;
#  - the caller slot's hand-over (model/caller.pml): as built, and with each
#    of its deliberate bugs, which spin must find.
# Usage: model/check.sh [WORKDIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
cd "$work"
cp "$here/sleep.pml" "$here/lock_latch.pml" "$here/isolate.pml" "$here/caller.pml" .
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

as_built "as built" ""
must_fail -DFRESH_COUNTED_TWICE
must_fail -DNO_FINAL_CHECK
must_fail -DNO_JEC_BUMP
# Broadcasts: one injected job and a broadcast to every worker.
as_built "with a broadcast" "-DBROADCAST -DINJECT=1"
must_fail "-DBROADCAST -DINJECT=1 -DNO_BCAST_FINAL_CHECK"

as_built "with a private job (split deque)" "-DSPLIT"
must_fail "-DSPLIT -DNO_PUBLISH_POST"
must_fail "-DSPLIT -DNO_DEMAND"
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
echo "model: all checks passed"
