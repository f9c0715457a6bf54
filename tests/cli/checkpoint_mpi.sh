#!/bin/bash
# Checkpoints of the distributed search (docs/checkpoints.md): a search on 2
# ranks, one rank killed with SIGKILL at a random moment and resumed from its
# last checkpoint on 2 ranks, reports what the uninterrupted search reports
# (the JSON report without its timing, memory and per-rank fields); killed
# and resumed on 1 rank, killed again and resumed on 3 ranks, it reports the
# same but for the witnesses, which may be other schedules to the same
# states; so does a search resumed from the checkpoint its timeout, or a
# SIGTERM to one rank, wrote; a checkpoint of the other kind of search, or a
# part truncated, corrupted, missing or one rank cannot write, is refused
# with its reason, exit 2.
# Usage: checkpoint_mpi.sh MPIEXEC TFSEM [SIZE [EVERY]]: lost-update-SIZE
# (default 7), a checkpoint every EVERY seconds (0.5).
set -u
mpiexec=$1 tfsem=$2 size=${3:-7} every=${4:-0.5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$tfsem" generate lost-update "$size" -o "$work/g.json" || fail "generate"
on() {  # on RANKS ARGS...: tfsem ARGS on RANKS ranks, in the background ($pid)
  local ranks=$1
  shift
  "$mpiexec" --oversubscribe -np "$ranks" "$tfsem" check "$work/g.json" --no-fix --distributed --json "$@" > "$work/out.json" 2> "$work/err" &
  pid=$!
}
# The report without what depends on the run (and, with `witnesses`, without the witnesses).
strip() {
  python3 - "$1" "${2:-}" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for k in ("seconds", "memory_bytes", "store_bytes", "ranks", "memory"):
    r.pop(k, None)
def drop(o):
    if isinstance(o, dict):
        return {k: drop(v) for k, v in o.items() if sys.argv[2] != "witnesses" or "witness" not in k}
    return [drop(x) for x in o] if isinstance(o, list) else o
print(json.dumps(drop(r), indent=1, sort_keys=True))
PY
}
on 2
wait "$pid"
[ $? -eq 1 ] || fail "the uninterrupted search: exit code"
cp "$work/out.json" "$work/whole.json"

# The ranks: the children of mpirun (from /proc, which every Linux has).
ranks_of() {
  local parent=$1 f line
  for f in /proc/[0-9]*/stat; do
    read -r line < "$f" 2> /dev/null || continue
    set -- ${line##*) }  # the fields after the command's name: state, parent, ...
    [ "$2" = "$parent" ] && { f=${f#/proc/}; echo "${f%/stat}"; }
  done
}
# Killed twice: one rank of the job, at a random moment past the first checkpoints.
dir=$work/ckpt
kill_one() {
  sleep "$(awk -v r="$RANDOM" -v e="$every" 'BEGIN { printf "%.2f", 1 + 2 * e + r / 32768 * 2 }')"
  local ranks
  ranks=$(ranks_of "$pid")
  [ -n "$ranks" ] && kill -KILL "$(echo "$ranks" | shuf -n 1)"
  wait "$pid" 2> /dev/null
}
from() {  # --resume, or --checkpoint where a killed search wrote none yet
  if [ -f "$dir/rf.ranks" ]; then echo --resume; else echo --checkpoint; fi
}
on 2 --checkpoint "$dir" --checkpoint-every "$every"
kill_one
echo "killed on 2 ranks: $(from) on 2"
on 2 "$(from)" "$dir" --checkpoint-every "$every"
wait "$pid"
[ $? -eq 1 ] || { cat "$work/err"; fail "the search resumed on 2 ranks: exit code"; }
diff <(strip "$work/whole.json") <(strip "$work/out.json") || fail "the search resumed on 2 ranks reports otherwise"
echo "killed, resumed on as many ranks: the same report, witnesses included"

rm -rf "$dir"
on 2 --checkpoint "$dir" --checkpoint-every "$every"
kill_one
echo "killed on 2 ranks: $(from) on 1"
on 1 "$(from)" "$dir" --checkpoint-every "$every"
kill_one
echo "killed on 1 rank: $(from) on 3"
on 3 "$(from)" "$dir" --checkpoint-every "$every"
wait "$pid"
rc=$?
[ "$rc" -eq 1 ] || { cat "$work/err"; fail "the last resumed search: exit code $rc"; }
diff <(strip "$work/whole.json" witnesses) <(strip "$work/out.json" witnesses) || fail "the resumed search reports otherwise"
echo "killed twice, resumed on 1 and 3 ranks: the same report"

# A timeout writes a checkpoint; the search resumed from it completes the same (the ranks stopped
# at different points of a round, so a state may be reached first from another parent).
rm -rf "$dir"
on 2 --checkpoint "$dir" --checkpoint-every "$every" --timeout 1.5
wait "$pid"
[ $? -eq 3 ] || fail "the search stopped by its timeout: exit code"
grep -q '"stopped_by": "timeout"' "$work/out.json" || fail "the search stopped by its timeout: its report"
cp -r "$dir" "$work/good"
on 2 --resume "$dir"
wait "$pid"
[ $? -eq 1 ] || fail "the search resumed after its timeout: exit code"
diff <(strip "$work/whole.json" witnesses) <(strip "$work/out.json" witnesses) || fail "the search resumed after its timeout reports otherwise"
echo "timeout: the same report"

# SIGTERM to one rank (as a batch scheduler signals the processes) stops every rank, INCOMPLETE,
# with a checkpoint that a search on 3 ranks completes the same.
rm -rf "$dir"
on 2 --checkpoint "$dir" --checkpoint-every "$every"
# Once the first checkpoint is written, so that the signal comes while the search runs.
while [ ! -f "$dir/rf.ranks" ] && kill -0 "$pid" 2> /dev/null; do sleep 0.05; done
kill -TERM "$(ranks_of "$pid" | head -1)"
wait "$pid"
[ $? -eq 3 ] && grep -q '"stopped_by": "interrupt"' "$work/out.json" || fail "the search stopped by SIGTERM"
on 3 --resume "$dir"
wait "$pid"
[ $? -eq 1 ] || fail "the search resumed after SIGTERM: exit code"
diff <(strip "$work/whole.json" witnesses) <(strip "$work/out.json" witnesses) || fail "the search resumed after SIGTERM reports otherwise"
echo "SIGTERM: the same report"

# Refusals, each with its reason and exit 2.
refused() {  # refused PATTERN RANKS ARGS...: the search exits 2 with an error matching PATTERN
  local pattern=$1 ranks=$2
  shift 2
  on "$ranks" "$@"
  wait "$pid"
  local rc=$?
  cat "$work/err"
  [ "$rc" -eq 2 ] || fail "exit code $rc, expected 2, for $pattern"
  grep -Eq "$pattern" "$work/err" || fail "no error matches '$pattern'"
}
reset() { rm -rf "$work/bad" && cp -r "$work/good" "$work/bad"; }
part=$(ls "$work/good"/rf.*.rank-1)
reset && truncate -s $(($(stat -c %s "$part") / 2)) "$work/bad/${part##*/}"
refused 'rank-1: truncated: [0-9]+ bytes of [0-9]+' 3 --resume "$work/bad"
reset && printf '\xff\x00\xff' | dd of="$work/bad/${part##*/}" bs=1 seek=$(($(stat -c %s "$part") / 2)) conv=notrunc status=none
refused 'rank-1: corrupted: its checksum does not match' 2 --resume "$work/bad"
reset && rm "$work/bad/${part##*/}"
refused 'rank-1: cannot open' 1 --resume "$work/bad"
reset
"$tfsem" check "$work/g.json" --no-fix --resume "$work/bad" > /dev/null 2> "$work/err"
[ $? -eq 2 ] && grep -q 'rf.ranks: the checkpoint of a --distributed search' "$work/err" || fail "a distributed checkpoint resumed alone"
rm -rf "$work/bad" && "$tfsem" check "$work/g.json" --no-fix --checkpoint "$work/bad" > /dev/null
refused 'rf.checkpoint: the checkpoint of a search without --distributed' 2 --resume "$work/bad"
# A part one rank cannot write (a directory in the way of its file) stops every rank, exit 2, none waiting.
mkdir -p "$work/blocked/rf.1.rank-1.tmp"
timeout 120 "$mpiexec" --oversubscribe -np 2 "$tfsem" check "$work/g.json" --no-fix --distributed --checkpoint "$work/blocked" \
  --checkpoint-every "$every" > /dev/null 2> "$work/err"
rc=$?
cat "$work/err"
[ "$rc" -eq 2 ] && grep -q 'rf.1.rank-1.tmp' "$work/err" || fail "a part one rank cannot write: exit code $rc"
echo "refusals: each with its reason"
