#!/bin/sh
# SPIN against tfsem on the same graphs, in one run: for each family and size,
# the graph is generated, exported to Promela, checked by SPIN (pan -O2
# -DSAFETY, exhaustive, its partial-order reduction on, no bitstate, memory
# bound PAN_MEMLIM MiB, default 16384) and by tfsem explore --por rf on one
# and on two threads; stored states, transitions, wall time, peak memory and
# whether the two outcome sets agree. Prints a Markdown table. A case written
# FAMILY:N:tfsem runs tfsem only (for sizes SPIN cannot finish here). tfsem
# runs TFSEM_RUNS times (default 2), one thread then two in turn, and each
# thread count's fastest run is kept: the first run of a graph pays for the
# memory that a virtual machine's host must back afresh (about a second of
# system time on lost-update-8 here), and would make whichever thread count
# runs first look slow.
# Usage: [TFSEM_RUNS=R] bench/spin_vs_tfsem.sh [TFSEM] [FAMILY:N[:tfsem] ...]
set -eu
. "$(dirname "$0")/../tests/spin/spin_lib.sh"
TFSEM=${1:-./build/cli/tfsem}
shift || true
CASES=${*:-lost-update:5 lost-update:6 lost-update:7 lost-update:8:tfsem lastwrite:8 assign-add:6 independent-chains:6 sgd-workers:3}
export PAN_MEMLIM=${PAN_MEMLIM:-16384}
TFSEM_RUNS=${TFSEM_RUNS:-2}
case $TFSEM_RUNS in
'' | *[!0-9]* | 0) echo "TFSEM_RUNS must be a positive integer, not '$TFSEM_RUNS'" >&2; exit 2 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '| graph | SPIN states | SPIN transitions | SPIN s | SPIN MiB | tfsem states | tfsem transitions | tfsem s, 1 thread | tfsem s, 2 threads | tfsem MiB | time SPIN/tfsem, 1 / 2 threads | memory SPIN/tfsem | outcomes agree |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
for c in $CASES; do
  family=${c%%:*} rest=${c#*:}
  n=${rest%%:*} only=${rest#"$n"}
  g="$work/g.json"
  "$TFSEM" generate "$family" "$n" -o "$g"
  rm -f "$work"/tfsem*.time
  r=0
  while [ "$r" -lt "$TFSEM_RUNS" ]; do
    r=$((r + 1))
    for t in 1 2; do
      /usr/bin/time -f '%e %M' -o "$work/tfsem$t.$r.time" "$TFSEM" explore "$g" --por rf --threads "$t" --json > "$work/explore.json"
    done
  done
  if [ "$only" = ":tfsem" ]; then
    printf '0\n0\n' > "$work/spin.time"
    spin_states=- spin_trans=- agree=n/a
  else
    "$TFSEM" export --promela "$g" -o "$work/model.pml"
    build_pan "$work"
    /usr/bin/time -f '%e %M' -o "$work/spin.time" sh -c "cd '$work' && ./pan -m1000000 > pan.out" || true
    spin_states=$(awk '/states, stored/ {print $1}' "$work/pan.out")
    spin_trans=$(awk '/transitions \(= stored\+matched\)/ {print $1}' "$work/pan.out")
    spin_outcomes "$work/pan.out" > "$work/spin.txt"
    tfsem_outcomes "$TFSEM" "$g" --threads 2 > "$work/tfsem.txt"
    agree=false
    cmp -s "$work/spin.txt" "$work/tfsem.txt" && agree=true
    grep -q 'errors: 0' "$work/pan.out" || agree="SPIN-error:$(grep -m1 'pan:' "$work/pan.out" | tr '|' ' ')"
  fi
  python3 - "$work" "$family-$n" "$spin_states" "$spin_trans" "$agree" <<'PY'
import glob, json, sys
w, name, ss, st, agree = sys.argv[1:]
se, sm = map(float, open(w + "/spin.time").read().split())
def fastest_and_peak(threads):  # the fastest run's seconds, the largest peak of any run
    runs = [tuple(map(float, open(f).read().split())) for f in glob.glob("%s/tfsem%d.*.time" % (w, threads))]
    return min(s for s, _ in runs), max(m for _, m in runs)
t1, m1 = fastest_and_peak(1)
t2, m2 = fastest_and_peak(2)
r = json.load(open(w + "/explore.json"))["por"]["rf"]
tm = max(m1, m2)
if ss == "-":
    spin, ratios = "| - | - | - | - ", "| - | -"
else:
    spin = "| %s | %s | %.2f | %.0f " % (ss, st, se, sm / 1024)
    ratios = "| %.1fx / %.1fx | %.1fx" % (se / max(t1, 0.01), se / max(t2, 0.01), sm / max(tm, 1))
print("| %s %s| %d | %d | %.2f | %.2f | %.0f %s | %s |" % (
    name, spin, r["states-stored"], r["transitions"], t1, t2, tm / 1024, ratios, agree))
PY
done
