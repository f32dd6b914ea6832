#!/usr/bin/env bash
# Checks spool's C11 memory orders with GenMC (model/genmc/*.c clients) under
# RC11 and IMM: each client must pass as built, and each of its mutants (a
# weakened order, a missing fence or test) must be rejected, else the check
# proves nothing.  A mutant is either a broken copy of the library, named in
# model/genmc/mutants and made by model/genmc/mutate.sh (the library's own
# code carries no switch for it), or, written -DFLAG, a switch of the
# client's own model code.
#
#   model/genmc/check.sh [--full | --quick] [GENMC_BINARY]
#
# Bounds.  Four clients explore minutes of executions as built at their
# full bounds (split_deque.c alone about twenty under IMM).  Their quick
# bounds (one job or one thief fewer, written beside each below) take
# seconds; their mutants run at the full bounds either way (GenMC stops at
# the first error, so those runs are short).  The full bounds run with
# --full, and also without it for each client whose checked sources changed
# since its last full run: a run that passes writes the clients' hashes to
# model/genmc/full.sha256 (commit it), and a run without --full compares.
# --quick: the quick bounds even if the sources changed (a local check).
#
# GENMC_ONLY="CLIENT..." runs only those clients (a local check after a
# change to their sources); the others' lines in full.sha256 are kept.
#
# GENMC_JOBS=N runs N GenMC runs at a time (default 1); each run's line
# ends with its seconds, and the lines come in the order listed below.
#
# Without an argument it uses $GENMC, or builds GenMC from the team's source
# (../shared/tools/genmc beside the repository; the build installs clang-19
# and friends from Debian as root, and takes several minutes; GENMC_BUILD
# is the build directory, default /tmp/genmc-v0.11.0, and a GenMC already
# built there is reused).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
flags=(-I "$root/src" -I "$root/include" -I "$root" -D_GNU_SOURCE)

# One GenMC run, which the script asks of itself (xargs, below): --one
# INDEX MODEL CLIENT MUTANT IPR BOUNDS, with the binary in
# $SPOOL_GENMC_BINARY; MODEL is -rc11 or -imm, MUTANT a mutant's name, a -D
# flag of the client, or "-" for the client as built, IPR "ipr",
# "noipr" (see noipr: below) or "live" (with --check-liveness: a client
# marked live below), BOUNDS "-" or a -D flag that sets a smaller
# bound (the quick bounds, as built only).  Prints one line: the client, the
# model, what was run, GenMC's verdict (pass, fail, or broken when it gave
# none) and the run's seconds; a mutant's line ends with "(must fail)".
if [ "${1:-}" = --one ]; then
  mm=$3 client=$4 mutant=$5 ipr=$6 bounds=${7:--}
  genmc=$SPOOL_GENMC_BINARY
  extra=()
  [ "$ipr" = noipr ] && extra=(-disable-ipr)
  [ "$ipr" = live ] && extra=(--check-liveness)
  args=()
  [ "$bounds" = - ] || args=("$bounds")
  tree=
  case "$mutant" in
    -) ;;
    -D*) args=("$mutant") ;;
    *)
      tree=$(mktemp -d)
      "$here/mutate.sh" "$mutant" "$tree" || { echo "genmc $client $mm with $mutant: broken (no such mutant)"; rm -rf "$tree"; exit 0; }
      flags=(-I "$tree/src" -I "$tree/include" -I "$tree" -D_GNU_SOURCE) ;;
  esac
  t0=$(date +%s)
  # --disable-estimation: GenMC's estimate of the state space, with
  # --check-liveness, sometimes ended a run without a verdict (2 of 12 runs
  # of omp_reserve.c's omp-reserve-post-relaxed; none of 16 without it).
  out=$("$genmc" "$mm" --disable-estimation ${extra[@]+"${extra[@]}"} -- "${flags[@]}" ${args[@]+"${args[@]}"} "$here/$client" 2>&1) || true
  [ -z "$tree" ] || rm -rf "$tree"
  secs=$(($(date +%s) - t0))
  if grep -q "No errors were detected" <<<"$out"; then
    verdict=pass
  elif grep -qE "^Error: " <<<"$out"; then
    verdict=fail
  else
    echo "model/genmc: GenMC gave no verdict on $client $mm $mutant:" >&2
    echo "$out" >&2
    verdict=broken
  fi
  if [ "$mutant" = - ]; then
    echo "genmc $client $mm as built${args[*]+ ${args[*]}}: $verdict (${secs}s)"
  else
    echo "genmc $client $mm${extra[*]+ ${extra[*]}} with $mutant: $verdict (must fail) (${secs}s)"
  fi
  exit 0
fi

mode=auto
case "${1:-}" in
  --full) mode=full; shift ;;
  --quick) mode=quick; shift ;;
esac
# The checked sources, per client: the client, every file of the model and
# of the library it includes (without comments), the script that makes
# mutants, and its check below (its quick bound, its mutants) with each of
# its mutants' entries in model/genmc/mutants.  model/genmc/full.sha256 holds one line
# per client, "HASH CLIENT", written by a run that passed with the client
# at its full bounds; a client whose sources changed since runs at its
# full bounds (a client with no quick bound runs at them anyway, so only
# the four with one ever cost minutes more).
# C files without their comments: a comment that changes changes no
# execution (a mutant whose text to replace is gone fails in every run).
strip_comments() {
  # perl: in every Debian (perl-base), before the tests install python3.
  perl -0777 -pe 's{/\*.*?\*/|//[^\n]*}{ }gs' "$@"
}
client_hash() { # $1: client
  local deps stanza m
  deps=$(cd "$root" && cc -MM -I src -I include -I . -D_GNU_SOURCE "model/genmc/$1" 2>/dev/null |
           tr ' \\' '\n\n' | grep -E '^(src|include|omp|model)/' | sort -u)
  stanza=$(awk -v c="$1" '$1 == "check" && $2 == c {on = 1} on && NF == 0 {exit} on' "$here/check.sh")
  # shellcheck disable=SC2086
  (cd "$root" && { strip_comments $deps
                   cat model/genmc/mutate.sh
                   echo "$stanza"
                   for m in $(tr -d '\\' <<<"$stanza"); do
                     m=${m#*:}
                     awk -v m="$m" '$1 == "mutant" {on = ($2 == m)} /^#/ {on = 0} on' model/genmc/mutants
                   done; } |
     sha256sum | cut -d' ' -f1)
}
# The client's bounds in this run: full or quick.
client_mode() { # $1: client
  [ "$mode" = auto ] || { echo "$mode"; return; }
  if grep -qx "$(client_hash "$1") $1" "$here/full.sha256" 2>/dev/null; then
    echo quick
  else
    echo full
  fi
}
if [ "$mode" = auto ]; then
  echo "model/genmc: quick bounds, full for each client whose sources changed since its last full run"
else
  echo "model/genmc: $mode bounds"
fi

genmc=${1:-${GENMC:-}}
if [ -z "$genmc" ]; then
  tools=$root/../shared/tools/genmc
  if [ ! -x "$tools/build.sh" ]; then
    echo "model/genmc: no GenMC binary given and no GenMC source at $tools: not checked"
    # Under CI a missing checker fails the run instead of passing unchecked.
    [ "${CI:-}" = true ] && exit 1
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

# check CLIENT MUTANT...: the client must pass under both models, and each
# mutant (one flag) must fail under both.  A mutant written rc11:FLAG must
# fail under RC11 only: it breaks an order that C11 needs but that IMM, a
# model of the hardware, keeps anyway through dependencies (its client says
# which), so IMM rightly passes it.  A mutant written noipr:FLAG is run
# with -disable-ipr: it makes two threads store to one atomic without
# ordering them, which GenMC's in-place revisiting stops at as "unordered
# writes" before it reaches the assertion the mutant breaks.  A mutant
# written quickrc11:FLAG runs under IMM only at the full bounds: IMM finds
# its error late in that client (minutes), and another client rejects it
# under IMM in seconds (named beside it below).  A client written with
# "live" after its name runs, its mutants too, with --check-liveness: a
# lost wake-up there is a thread that spins for good (omp_stubs.h's park).
# check only lists the runs (a client as built under both models first,
# then its mutants); they are done below, GENMC_JOBS at a time (default 1),
# in the order listed: the clients with the longest runs come first, so
# that parallel runs end together.
runs=()
clients=()
skipped=()
check() { # $1: client; [quick=FLAG: its quick bound]; [live]; rest: mutant flags, one per word
  local client=$1 mm mutant ipr bounds=- mode_ipr=ipr cmode
  shift
  if [ -n "${GENMC_ONLY:-}" ] && [[ " $GENMC_ONLY " != *" $client "* ]]; then
    skipped+=("$client")
    return
  fi
  cmode=$(client_mode "$client")
  clients+=("$client")
  if [ "${1#quick=}" != "${1:-}" ]; then
    if [ "$cmode" = quick ]; then
      bounds=${1#quick=}
    else
      [ "$mode" = auto ] && echo "model/genmc: $client changed since its last full run: full bounds"
    fi
    shift
  fi
  if [ "${1:-}" = live ]; then
    mode_ipr=live
    shift
  fi
  runs+=("-rc11 $client - $mode_ipr $bounds" "-imm $client - $mode_ipr $bounds")
  for mm in -rc11 -imm; do
    for mutant in "$@"; do
      ipr=$mode_ipr
      if [ "${mutant#noipr:}" != "$mutant" ]; then
        ipr=noipr
        mutant=${mutant#noipr:}
      fi
      if [ "${mutant#rc11:}" != "$mutant" ]; then
        [ "$mm" = -rc11 ] || continue
        mutant=${mutant#rc11:}
      fi
      if [ "${mutant#quickrc11:}" != "$mutant" ]; then
        [ "$mm" = -rc11 ] || [ "$cmode" = full ] || continue
        mutant=${mutant#quickrc11:}
      fi
      runs+=("$mm $client $mutant $ipr")
    done
  done
}

# (deque-steal-unfenced under IMM: chase_lev.c, below, in seconds.)
check split_deque.c quick=-DJOBS=2 \
  deque-publish-relaxed \
  deque-steal-split-relaxed \
  deque-pop-unfenced \
  quickrc11:deque-steal-unfenced \
  deque-private-slack \
  deque-serve-store \
  deque-clear-flag-first \
  deque-no-demand-in-floor \
  noipr:deque-demand-store \
  deque-serve-relaxed \
  deque-demand-relaxed

check spawn_block.c quick=-DJOBS=3 \
  -DCOUNT_ALL_ON_PUBLISH=0 \
  -DCLOSE_ON_PUBLISH=0 \
  -DDONE_ORDER=memory_order_relaxed \
  -DIN_PLACE_KEEP_EMPTY=1

check scope_credits.c quick=-DTHIEVES=1 \
  -DCOUNT_ON_PUBLISH=0 \
  -DDONE_ORDER=memory_order_relaxed \
  -DLAST_COUNT_ORDER=memory_order_relaxed

check window.c \
  deque-alert-split-relaxed \
  deque-window-limit-store \
  deque-no-window-down

check fifo_ticket.c quick=-DJOBS=2 \
  -DCLOSE_ON_PUBLISH=0 \
  -DCOUNT_ON_PUBLISH=0 \
  -DDONE_ORDER=memory_order_relaxed

check frames.c quick=-DTHIEVES=1 \
  frames-publish-relaxed \
  frames-steal-relaxed \
  frames-latch-set-relaxed \
  frames-retract-blind \
  frames-sync-slack \
  frames-serve-relaxed \
  frames-ask-relaxed \
  frames-clear-asked-first \
  frames-no-retract-alert \
  frames-no-reset-alert

check fork_sync.c \
  sync-pop-no-floor-test \
  sync-pop-no-bottom-test \
  sync-pop-no-slot-test

check push_alert.c \
  deque-no-alert \
  deque-limit-reset-store \
  deque-limit-reset-relaxed \
  deque-alert-relaxed

check chase_lev.c \
  deque-publish-relaxed \
  deque-steal-split-relaxed \
  deque-pop-unfenced \
  deque-steal-unfenced

check fifo_segments.c \
  fifo-front-relaxed \
  fifo-link-relaxed \
  rc11:fifo-drained-relaxed

check fifo_batch.c \
  fifo-front-relaxed \
  fifo-batch-past-segment \
  fifo-batch-moves-front-by-one \
  rc11:fifo-drained-relaxed

check trace_ring.c \
  trace-claim-fence-relaxed \
  trace-check-fence-relaxed \
  trace-publish-relaxed \
  trace-count-relaxed

check lock_latch.c \
  lock-latch-set-relaxed \
  lock-latch-seen-relaxed

check copy_arena.c \
  rc11:copy-drop-relaxed \
  copy-retire-miscounts

check caller_slot.c \
  caller-claim-relaxed \
  caller-release-relaxed

check slot_server.c \
  slot-server-unfenced \
  slot-release-unfenced \
  slot-look-at-bottom \
  -DPUSH_AFTER_POST

check lend_dock.c \
  lend-claim-relaxed \
  lend-take-relaxed \
  lend-close-relaxed

check omp_barrier.c live \
  omp-park-relaxed \
  omp-sleepers-relaxed \
  omp-gen-release \
  omp-no-release-look

check omp_join.c live \
  omp-join-arrive-relaxed \
  omp-join-park-relaxed \
  omp-join-no-wake

check omp_task_wake.c live \
  omp-task-wake-unfenced \
  omp-task-park-unfenced \
  omp-task-no-wake

check omp_wait.c live \
  omp-wake-relaxed \
  omp-wake-no-look \
  -DWEAK_DROP

check omp_reserve.c live \
  omp-reserve-post-relaxed \
  omp-reserve-park-relaxed \
  omp-reserve-no-claim \
  omp-reserve-claim-acq-rel

# Every mutant of model/genmc/mutants is used by some client above.
[ -n "${GENMC_ONLY:-}" ] ||
for m in $("$here/mutate.sh" --list); do
  case " ${runs[*]} " in
    *" $m "*) ;;
    *) echo "model/genmc: mutant $m is checked by no client"; exit 1 ;;
  esac
done

# Each run's line goes to a file of its own, printed in the order above.
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for i in "${!runs[@]}"; do
  echo "$i ${runs[$i]}"
done | SPOOL_GENMC_BINARY=$genmc xargs -P "${GENMC_JOBS:-1}" -L 1 sh -c \
  'out=$1; shift; "$0" --one "$@" >"$out/$1" 2>&1' "$here/check.sh" "$out" || true
# (A run that left no verdict line fails below.)
status=0
for i in "${!runs[@]}"; do
  if ! grep -q '^genmc ' "$out/$i" 2>/dev/null; then
    cat "$out/$i" 2>/dev/null || true
    echo "genmc ${runs[$i]}: no verdict line"
    status=1
    continue
  fi
  cat "$out/$i"
  case "$(grep '^genmc ' "$out/$i")" in
    *": fail (must fail) ("* | *" as built"*": pass ("*) ;;
    *) status=1 ;;
  esac
done

if [ $status -ne 0 ]; then
  echo "model/genmc: FAILED"
  exit 1
fi
if [ "$mode" != quick ]; then
  # Every client passed at its full bounds, or at its quick ones with the
  # sources of its last full run.
  for c in "${clients[@]}"; do
    echo "$(client_hash "$c") $c"
  done >"$here/full.sha256.new"
  for c in ${skipped[@]+"${skipped[@]}"}; do
    grep " $c\$" "$here/full.sha256" || true
  done >>"$here/full.sha256.new"
  sort -k2 -o "$here/full.sha256.new" "$here/full.sha256.new"
  if cmp -s "$here/full.sha256.new" "$here/full.sha256"; then
    rm -f "$here/full.sha256.new"
  else
    mv "$here/full.sha256.new" "$here/full.sha256"
    echo "model/genmc: wrote model/genmc/full.sha256"
  fi
fi
echo "model/genmc: all checks passed (${#runs[@]} runs, $mode bounds)"
