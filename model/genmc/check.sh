#!/usr/bin/env bash
# Checks spool's C11 memory orders with GenMC (model/genmc/*.c clients) under
# RC11 and IMM: each client must pass as built, and each of its mutants (a
# weakened order) must be rejected, else the check proves nothing.
#
#   model/genmc/check.sh [GENMC_BINARY]
#
# Without an argument it uses $GENMC, or builds GenMC from the team's source
# (../shared/tools/genmc beside the repository; the build installs clang-19
# and friends from Debian as root, and takes several minutes; GENMC_BUILD
# is the build directory, default /tmp/genmc-v0.11.0, and a GenMC already
# built there is reused).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
genmc=${1:-${GENMC:-}}
if [ -z "$genmc" ]; then
  tools=$root/../shared/tools/genmc
  if [ ! -x "$tools/build.sh" ]; then
    echo "model/genmc: no GenMC binary given and no GenMC source at $tools: not checked"
    exit 0
  fi
  export GENMC_BUILD=${GENMC_BUILD:-/tmp/genmc-v0.11.0}
  # A GenMC built there before (by this script) is reused: the build takes
  # minutes.
  genmc=$(find "$GENMC_BUILD" -maxdepth 2 -name genmc -type f -perm -u+x 2>/dev/null | head -1)
  if [ -z "$genmc" ] || ! "$genmc" --version >/dev/null 2>&1; then
    genmc=$("$tools/build.sh" "$tools"/genmc-v*.tar.gz | tail -1)
  fi
fi
[ -x "$genmc" ] || { echo "model/genmc: $genmc is not an executable" >&2; exit 1; }

flags=(-I "$root/src" -I "$root/include" -D_GNU_SOURCE)
extra=() # GenMC options for one mutant (see noipr: below)
run() { # $1: model, $2: client, rest: extra flags; prints GenMC's verdict line
  local out
  out=$("$genmc" "$1" ${extra[@]+"${extra[@]}"} -- "${flags[@]}" "${@:3}" "$2" 2>&1) || true
  if grep -q "No errors were detected" <<<"$out"; then
    echo pass
  elif grep -qE "^Error: " <<<"$out"; then
    echo fail
  else
    echo "model/genmc: GenMC gave no verdict on $2 $*:" >&2
    echo "$out" >&2
    echo broken
  fi
}

status=0
# check CLIENT MUTANT...: the client must pass under both models, and each
# mutant (one flag) must fail under both.  A mutant written rc11:FLAG must
# fail under RC11 only: it breaks an order that C11 needs but that IMM, a
# model of the hardware, keeps anyway through dependencies (its client says
# which), so IMM rightly passes it.  A mutant written noipr:FLAG is run
# with -disable-ipr: it makes two threads store to one atomic without
# ordering them, which GenMC's in-place revisiting stops at as "unordered
# writes" before it reaches the assertion the mutant breaks.
check() { # $1: client; rest: mutant flags, one per word
  local client=$here/$1 name=$1 mm verdict mutant
  shift
  for mm in -rc11 -imm; do
    extra=()
    verdict=$(run "$mm" "$client")
    echo "genmc $name $mm as built: $verdict"
    [ "$verdict" = pass ] || status=1
    for mutant in "$@"; do
      extra=()
      if [ "${mutant#noipr:}" != "$mutant" ]; then
        extra=(-disable-ipr)
        mutant=${mutant#noipr:}
      fi
      if [ "${mutant#rc11:}" != "$mutant" ]; then
        [ "$mm" = -rc11 ] || continue
        mutant=${mutant#rc11:}
      fi
      verdict=$(run "$mm" "$client" "$mutant")
      echo "genmc $name $mm${extra[*]+ ${extra[*]}} with $mutant: $verdict (must fail)"
      [ "$verdict" = fail ] || status=1
    done
  done
}

check lock_latch.c \
  -DSPOOL__LOCK_LATCH_SET_ORDER=memory_order_relaxed \
  -DSPOOL__LOCK_LATCH_SEEN_ORDER=memory_order_relaxed

check chase_lev.c \
  -DSPOOL__DEQUE_PUBLISH_ORDER=memory_order_relaxed \
  -DSPOOL__DEQUE_STEAL_SPLIT_ORDER=memory_order_relaxed \
  -DSPOOL__DEQUE_POP_FENCED=0 \
  -DSPOOL__DEQUE_STEAL_FENCED=0

check split_deque.c \
  -DSPOOL__DEQUE_PUBLISH_ORDER=memory_order_relaxed \
  -DSPOOL__DEQUE_STEAL_SPLIT_ORDER=memory_order_relaxed \
  -DSPOOL__DEQUE_POP_FENCED=0 \
  -DSPOOL__DEQUE_STEAL_FENCED=0 \
  -DSPOOL__DEQUE_PRIVATE_SLACK=1 \
  -DSPOOL__DEQUE_SERVE_STORE=1 \
  -DSPOOL__DEQUE_CLEAR_FLAG_FIRST=1 \
  -DSPOOL__DEQUE_NO_DEMAND_IN_FLOOR=1 \
  noipr:-DSPOOL__DEQUE_DEMAND_STORE=1 \
  -DSPOOL__DEQUE_SERVE_ORDER=memory_order_relaxed \
  -DSPOOL__DEQUE_DEMAND_ORDER=memory_order_relaxed

check push_alert.c \
  -DSPOOL__DEQUE_NO_ALERT=1 \
  -DSPOOL__DEQUE_LIMIT_RESET_STORE=1 \
  -DSPOOL__DEQUE_LIMIT_RESET_ORDER=memory_order_relaxed \
  -DSPOOL__DEQUE_ALERT_ORDER=memory_order_relaxed

check window.c \
  -DSPOOL__DEQUE_ALERT_SPLIT_ORDER=memory_order_relaxed \
  -DSPOOL__DEQUE_WINDOW_LIMIT_STORE=1 \
  -DSPOOL__DEQUE_NO_WINDOW_DOWN=1

check scope_credits.c \
  -DCOUNT_ON_PUBLISH=0 \
  -DDONE_ORDER=memory_order_relaxed \
  -DLAST_COUNT_ORDER=memory_order_relaxed

check spawn_block.c \
  -DCOUNT_ALL_ON_PUBLISH=0 \
  -DCLOSE_ON_PUBLISH=0 \
  -DDONE_ORDER=memory_order_relaxed \
  -DIN_PLACE_KEEP_EMPTY=1

check fifo_ticket.c \
  -DCLOSE_ON_PUBLISH=0 \
  -DCOUNT_ON_PUBLISH=0 \
  -DDONE_ORDER=memory_order_relaxed

check fifo_segments.c \
  -DSPOOL__FIFO_QUEUE_FRONT_ORDER=memory_order_relaxed \
  -DSPOOL__FIFO_QUEUE_LINK_ORDER=memory_order_relaxed \
  rc11:-DSPOOL__FIFO_QUEUE_DRAINED_ORDER=memory_order_relaxed

check trace_ring.c \
  -DSPOOL__TRACE_CLAIM_FENCE=memory_order_relaxed \
  -DSPOOL__TRACE_CHECK_FENCE=memory_order_relaxed \
  -DSPOOL__TRACE_PUBLISH_ORDER=memory_order_relaxed \
  -DSPOOL__TRACE_COUNT_ORDER=memory_order_relaxed

if [ $status -ne 0 ]; then
  echo "model/genmc: FAILED"
  exit 1
fi
echo "model/genmc: all checks passed"
