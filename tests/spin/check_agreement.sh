#!/bin/sh
# SPIN and tfsem agree: every integer-valued model in models/, and small
# members of the benchmark families, exported to Promela; SPIN's exhaustive
# search (pan -DSAFETY) prints each terminal outcome, and the set must equal
# the outcomes of tfsem check. Exits 77 (skipped) when spin or cc is missing.
# Usage: check_agreement.sh TFSEM SOURCE_DIR
set -u
TFSEM=$1
SRC=$2
. "$(dirname "$0")/spin_lib.sh"
command -v spin >/dev/null 2>&1 || { echo "spin is not installed: skipped"; exit 77; }
command -v cc >/dev/null 2>&1 || { echo "no C compiler: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for f in lost-update:3 lastwrite:4 assign-add:3 independent-chains:3 sgd-workers:2; do
  "$TFSEM" generate "${f%:*}" "${f#*:}" -o "$work/${f%:*}-${f#*:}.json"
done
compared=0 status=0
for model in "$SRC"/models/*.json "$work"/*.json; do
  name=$(basename "$model" .json)
  if ! "$TFSEM" export --promela "$model" -o "$work/model.pml" 2> "$work/why"; then
    echo "not exported: $name ($(head -1 "$work/why"))"
    continue
  fi
  (build_pan "$work" && cd "$work" && ./pan -m100000 > pan.out) || { echo "SPIN failed on $name"; status=1; continue; }
  spin_outcomes "$work/pan.out" > "$work/spin.txt"
  tfsem_outcomes "$TFSEM" "$model" > "$work/tfsem.txt"
  if diff -u "$work/tfsem.txt" "$work/spin.txt" > "$work/diff"; then
    echo "agree: $name ($(wc -l < "$work/spin.txt") outcomes)"
  else
    echo "DISAGREE: $name"; cat "$work/diff"; status=1
  fi
  compared=$((compared + 1))
done
[ "$compared" -ge 8 ] || { echo "only $compared graphs compared"; status=1; }
exit $status
