#!/bin/sh
# SPIN and tfsem agree: every model in models/ that exports, small members of
# the benchmark families, seeded random graphs with conditionals and while
# loops (tfsem generate random-control), and the small control-flow graphs
# in tests/spin/graphs/, exported to Promela; SPIN's exhaustive search (pan
# -DSAFETY) prints each terminal outcome, and the set must equal the outcomes
# of tfsem check. Loops are unrolled to the bound under which tfsem check is
# complete (4, doubled as needed; a graph whose loops need more than 64 is
# not compared), for both tools. pan must report no error (an assertion
# fails where a loop would run past the bound). Exits 77 (skipped) when spin
# or cc is missing.
# Usage: check_agreement.sh TFSEM SOURCE_DIR
set -u
TFSEM=$1
SRC=$2
here=$(dirname "$0")
. "$here/spin_lib.sh"
command -v spin >/dev/null 2>&1 || { echo "spin is not installed: skipped"; exit 77; }
command -v cc >/dev/null 2>&1 || { echo "no C compiler: skipped"; exit 77; }
export PAN_CFLAGS=-O0  # small models: compiling pan dominates, and -O0 compiles it fastest
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/graphs"
FAMILIES="lost-update:3 lastwrite:4 assign-add:3 independent-chains:3 sgd-workers:2"
# random-control seeds that export (i32 and bool scalars, initialized
# variables) with small state spaces: loops at parallel_iterations 1, 2 and
# 10, conditionals with DEAD outputs and Choice, a merge-two-live violation.
SEEDS="2 10 14 19 21 40 68 87 91 93 141 317"
for f in $FAMILIES; do
  "$TFSEM" generate "${f%:*}" "${f#*:}" -o "$work/graphs/${f%:*}-${f#*:}.json"
done
for s in $SEEDS; do
  "$TFSEM" generate random-control "$s" -o "$work/graphs/random-control-$s.json"
done
# Every family and seed, and every hand-written graph, must be compared;
# models/ adds those of its models that export (at least 3 do).
expected=$(($(echo $FAMILIES $SEEDS | wc -w) + $(ls "$here"/graphs/*.json | wc -l) + 3))

compared=0 status=0
for model in "$SRC"/models/*.json "$work"/graphs/*.json "$here"/graphs/*.json; do
  name=$(basename "$model" .json)
  if ! "$TFSEM" export --promela "$model" -o "$work/model.pml" 2> "$work/why"; then
    echo "not exported: $name ($(head -1 "$work/why"))"
    continue
  fi
  k=$(loop_bound "$TFSEM" "$model")
  [ "$k" -gt 0 ] || { echo "not compared: $name (its loops run past 64 iterations)"; continue; }
  "$TFSEM" export --promela --max-iterations "$k" "$model" -o "$work/model.pml"
  (build_pan "$work" && cd "$work" && ./pan -m1000000 > pan.out) || { echo "SPIN failed on $name"; status=1; continue; }
  if ! grep -q 'errors: 0' "$work/pan.out"; then
    echo "SPIN reports an error on $name (loops unrolled to $k):"; grep -E '^BEYOND|^pan:' "$work/pan.out" | head -3; status=1
    continue
  fi
  spin_outcomes "$work/pan.out" > "$work/spin.txt"
  tfsem_outcomes "$TFSEM" "$model" --max-iterations "$k" > "$work/tfsem.txt"
  if diff -u "$work/tfsem.txt" "$work/spin.txt" > "$work/diff"; then
    echo "agree: $name ($(wc -l < "$work/spin.txt") outcomes$( [ "$k" -gt 4 ] && echo ", loops unrolled to $k"))"
  else
    echo "DISAGREE: $name"; cat "$work/diff"; status=1
  fi
  compared=$((compared + 1))
done
[ "$compared" -ge "$expected" ] || { echo "only $compared graphs compared, expected $expected"; status=1; }
echo "$compared graphs compared"
exit $status
