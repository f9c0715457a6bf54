#!/bin/sh
# SPIN against tfsem on the same graphs, in one run: for each family and size,
# the graph is generated, exported to Promela, checked by SPIN (pan -O2
# -DSAFETY, exhaustive, its partial-order reduction on, no bitstate) and by
# tfsem explore --por rf; stored states, transitions, wall time, peak memory
# and whether the two outcome sets agree. Prints a Markdown table.
# Usage: bench/spin_vs_tfsem.sh [TFSEM] [FAMILY:N ...]
set -eu
. "$(dirname "$0")/../tests/spin/spin_lib.sh"
TFSEM=${1:-./build/cli/tfsem}
shift || true
CASES=${*:-lost-update:4 lost-update:5 lastwrite:6 lastwrite:8 assign-add:6 independent-chains:6 sgd-workers:3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '| graph | SPIN states | SPIN transitions | SPIN s | SPIN MiB | tfsem states | tfsem transitions | tfsem s | tfsem MiB | time SPIN/tfsem | memory SPIN/tfsem | outcomes agree |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for c in $CASES; do
  family=${c%:*} n=${c#*:}
  g="$work/g.json"
  "$TFSEM" generate "$family" "$n" -o "$g"
  "$TFSEM" export --promela "$g" -o "$work/model.pml"
  build_pan "$work"
  /usr/bin/time -f '%e %M' -o "$work/spin.time" sh -c "cd '$work' && ./pan -m1000000 > pan.out"
  spin_states=$(awk '/states, stored/ {print $1}' "$work/pan.out")
  spin_trans=$(awk '/transitions \(= stored\+matched\)/ {print $1}' "$work/pan.out")
  spin_outcomes "$work/pan.out" > "$work/spin.txt"
  /usr/bin/time -f '%e %M' -o "$work/tfsem.time" "$TFSEM" explore "$g" --por rf --json > "$work/explore.json"
  tfsem_outcomes "$TFSEM" "$g" > "$work/tfsem.txt"
  agree=false
  cmp -s "$work/spin.txt" "$work/tfsem.txt" && agree=true
  grep -q 'errors: 0' "$work/pan.out" || agree="SPIN-error:$(grep -m1 'pan:' "$work/pan.out" | tr '|' ' ')"
  python3 - "$work" "$family-$n" "$spin_states" "$spin_trans" "$agree" <<'PY'
import json, sys
w, name, ss, st, agree = sys.argv[1:]
se, sm = open(w + "/spin.time").read().split()
te, tm = open(w + "/tfsem.time").read().split()
r = json.load(open(w + "/explore.json"))["por"]["rf"]
print("| %s | %s | %s | %.2f | %.0f | %d | %d | %.2f | %.0f | %.1fx | %.1fx | %s |" % (
    name, ss, st, float(se), int(sm) / 1024, r["states-stored"], r["transitions"], float(te), int(tm) / 1024,
    float(se) / max(float(te), 0.01), int(sm) / max(int(tm), 1), agree))
PY
done
