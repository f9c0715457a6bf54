#!/bin/sh
# The explorer's reductions side by side on the benchmark families, in one run:
# stored states, explored behaviours and seconds for --por none, stubborn, rf.
# Usage: bench/explore_families.sh [TFSEM] [TIMEOUT_S]   (prints a Markdown table)
set -eu
TFSEM=${1:-./build/cli/tfsem}
TIMEOUT=${2:-60}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '| graph | states none | states stubborn | states rf | behaviours none | behaviours stubborn | behaviours rf | s none | s stubborn | s rf | none/rf time |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
row() {
  family=$1 n=$2
  "$TFSEM" generate "$family" "$n" -o "$tmp/g.json"
  "$TFSEM" explore "$tmp/g.json" --timeout "$TIMEOUT" --json > "$tmp/r.json" || true
  python3 - "$tmp/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["por"]
def cell(k, key):
    c = p[k]
    v = c[key] if key != "seconds" else "%.3f" % c[key]
    if v == 2**64 - 1: v = ">=2^64"
    return str(v) if c["complete"] else ">" + str(v) + " (" + c["stopped_by"] + ")"
ratio = "%.0fx" % (p["none"]["seconds"] / max(p["rf"]["seconds"], 1e-4)) if p["none"]["complete"] else "n/a"
print("| %s | %s | %s | %s |" % (r["graph"],
      " | ".join(cell(k, "states-stored") for k in ("none", "stubborn", "rf")),
      " | ".join(cell(k, "behaviours-explored") for k in ("none", "stubborn", "rf")),
      " | ".join(cell(k, "seconds") for k in ("none", "stubborn", "rf")) + " | " + ratio))
PY
}
for n in 2 4 6 7; do row independent-chains $n; done
for n in 3 5 7 9; do row lastwrite $n; done
for n in 3 4 5; do row lost-update $n; done
for n in 3 5 7; do row assign-add $n; done
for n in 2 3 4; do row sgd-workers $n; done
