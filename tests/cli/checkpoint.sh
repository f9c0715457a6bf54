#!/bin/bash
# Checkpoints (docs/checkpoints.md): a search killed with SIGKILL at random
# moments and resumed each time from its last checkpoint reports what the
# uninterrupted search reports (the JSON report without its timing and
# memory fields: every outcome, witness, race and counter); a timeout
# writes a checkpoint that a resumed search completes; a truncated or
# corrupted checkpoint, or one of another graph or other search options, is
# refused with its reason, exit 2.
# Usage: checkpoint.sh TFSEM [SIZE [KILLS [EVERY [WITHIN]]]]: lost-update-SIZE
# (default 7), killed KILLS times (5), a checkpoint every EVERY seconds (0.3),
# each run killed at random within WITHIN seconds (2) but after EVERY.
set -u
tfsem=$1 size=${2:-7} kills=${3:-5} every=${4:-0.3} within=${5:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$tfsem" generate lost-update "$size" -o "$work/g.json" || fail "generate"
# The report without what depends on the run: time and memory.
strip() { grep -Ev '"(seconds|memory_bytes|store_bytes|bytes|from|memory-kib|bytes-per-state|store-bytes-per-state)"' "$1"; }
"$tfsem" check "$work/g.json" --no-fix --json > "$work/whole.json"
[ $? -eq 1 ] || fail "the uninterrupted search: exit code"

# Killed `kills` times, each run (but the first) resumed, with 1 or 2 threads
# (the store keeps the first run's two shards).
dir=$work/ckpt
"$tfsem" check "$work/g.json" --no-fix --json --checkpoint "$dir" --checkpoint-every "$every" --threads 2 > /dev/null &
pid=$!
for k in $(seq 1 "$kills"); do
  sleep "$(awk -v r="$RANDOM" -v e="$every" -v w="$within" 'BEGIN { printf "%.2f", e + 0.2 + r / 32768 * (w - e - 0.2) }')"
  kill -KILL "$pid" 2> /dev/null
  wait "$pid" 2> /dev/null
  from=(--resume "$dir")  # killed before its first checkpoint: it starts over
  [ -f "$dir/rf.checkpoint" ] || from=(--checkpoint "$dir")
  echo "kill $k: ${from[*]}"
  "$tfsem" check "$work/g.json" --no-fix --json "${from[@]}" --checkpoint-every "$every" --threads $((k % 2 + 1)) > "$work/resumed.json" &
  pid=$!
done
wait "$pid"
rc=$?
[ "$rc" -eq 1 ] || fail "the last resumed search: exit code $rc"
diff <(strip "$work/whole.json") <(strip "$work/resumed.json") || fail "the resumed search reports otherwise"
echo "killed $kills times: the same report"

# A timeout writes a checkpoint; the resumed search completes the same. The
# timeout is a fraction of the search's time on one thread (lost-update-7:
# 0.65 s on the quickest runs).
rm -rf "$dir"
"$tfsem" check "$work/g.json" --no-fix --json --checkpoint "$dir" --timeout 0.25 > "$work/stopped.json"
[ $? -eq 3 ] || fail "the search stopped by its timeout: exit code"
"$tfsem" check "$work/g.json" --no-fix --json --resume "$dir" > "$work/resumed.json"
[ $? -eq 1 ] || fail "the search resumed after its timeout: exit code"
diff <(strip "$work/whole.json") <(strip "$work/resumed.json") || fail "the search resumed after its timeout reports otherwise"
echo "timeout: the same report"

# explore: a checkpoint per reduction; a reduction that ended resumes to its
# report, one without a checkpoint (but the first) starts over.
"$tfsem" generate lost-update 4 -o "$work/small.json" || fail "generate"
"$tfsem" explore "$work/small.json" --por none,rf --json > "$work/explore.json"
"$tfsem" explore "$work/small.json" --por none,rf --json --checkpoint "$work/x" > /dev/null
[ -f "$work/x/none.checkpoint" ] && [ -f "$work/x/rf.checkpoint" ] || fail "explore: a checkpoint per reduction"
rm "$work/x/rf.checkpoint"
"$tfsem" explore "$work/small.json" --por none,rf --json --resume "$work/x" > "$work/resumed.json"
diff <(strip "$work/explore.json") <(strip "$work/resumed.json") || fail "the resumed explore reports otherwise"
"$tfsem" explore "$work/small.json" --por stubborn,rf --json --resume "$work/x" > /dev/null 2> "$work/err"
[ $? -eq 2 ] && grep -q 'stubborn.checkpoint: cannot open' "$work/err" || fail "explore: no checkpoint of its first reduction"
echo "explore: the same report"

# Refusals, each with its reason and exit 2.
refused() {  # refused PATTERN ARGS...: the resumed check exits 2 with an error matching PATTERN
  local pattern=$1
  shift
  "$tfsem" check "$@" --no-fix --resume "$work/bad" > "$work/out" 2> "$work/err"
  local rc=$?
  cat "$work/err"
  [ "$rc" -eq 2 ] || fail "exit code $rc, expected 2, for $pattern"
  grep -Eq "$pattern" "$work/err" || fail "no error matches '$pattern'"
}
reset() { rm -rf "$work/bad" && cp -r "$dir" "$work/bad"; }
ckpt=$work/bad/rf.checkpoint
reset && truncate -s $(($(stat -c %s "$dir/rf.checkpoint") / 2)) "$ckpt"
refused 'rf.checkpoint: truncated: [0-9]+ bytes of [0-9]+' "$work/g.json"
reset && printf '\xff\x00\xff' | dd of="$ckpt" bs=1 seek=$(($(stat -c %s "$ckpt") / 2)) conv=notrunc status=none
refused 'rf.checkpoint: corrupted: its checksum does not match' "$work/g.json"
reset && printf 'garbage' > "$ckpt"
refused 'rf.checkpoint: not a tfsem checkpoint' "$work/g.json"
reset && "$tfsem" generate lost-update 3 -o "$work/other.json"
refused 'a checkpoint of another graph \(hash [0-9a-f]+\), not of hash' "$work/other.json"
reset
refused 'a checkpoint of other search options \(--por rf --max-iterations 100 --max-depth 100\), not of --por rf --max-iterations 7' \
  "$work/g.json" --max-iterations 7
reset && rm "$ckpt"
refused 'rf.checkpoint: cannot open' "$work/g.json"
echo "refusals: each with its reason"
