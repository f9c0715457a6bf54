#!/bin/sh
# The pages in a real browser, headless Chromium (Debian's chromium): the page
# check --html writes for Figure 4's lost update steps through outcome 1's
# witness by keyboard, showing at each step the fired node and the state that
# trace prints for the same schedule, in order, and back to the start by its
# button, showing them again in reverse; the page for Figure 1 opens on the
# paper's Figures 2 and 3; the page trace --html writes for the thesis's while
# loop shows each edge's context on the graph. Exits 77 (skipped) where
# Chromium is absent.
# Usage: stepper.sh TFSEM SOURCE_DIR
set -eu
TFSEM=$1
SRC=$2
. "$SRC/tests/page/browser.sh"
# The page's DOM once its script has run, at the address's #fragment.
dom() { headless --dump-dom "file://$1#$2"; }

model=$SRC/models/figure-4-lost-update.json
"$TFSEM" check "$model" --json --html "$work/f4.html" > "$work/check.json" || [ $? -eq 1 ]
witness=$(grep -m1 '"witness": "' "$work/check.json" | sed 's/.*"witness": "\([^"]*\)".*/\1/')
[ -n "$witness" ] || { echo "no witness in check --json"; exit 1; }
# trace's states: "initial state" or "step K: fire NODE (LABEL)", then VarValue and InTransit.
"$TFSEM" trace "$model" --schedule "$witness" |
  sed -n 's/^ *//; /^initial state$/p; /^step [0-9]*: fire /p; /^VarValue:/p; /^InTransit:/p' > "$work/forward"
steps=$(grep -c '^step ' "$work/forward")
[ "$steps" -eq 17 ] || { echo "outcome 1's witness has $steps steps, not 17"; exit 1; }
# Back from the last state: the states before it, last first, three lines each.
awk '{ block[int((NR - 1) / 3)] = block[int((NR - 1) / 3)] $0 "\n" }
     END { n = int(NR / 3); printf "back\n"; for (k = n - 2; k >= 0; k--) printf "%s", block[k] }' "$work/forward" > "$work/back"
cat "$work/forward" "$work/back" > "$work/expected"
dom "$work/f4.html" "witness=0&record=1" > "$work/f4.dom"
sed -n '/<pre id="recording"/,/<\/pre>/p' "$work/f4.dom" |
  sed 's/^ *<pre id="recording"[^>]*>//; s/<\/pre>.*//; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g' | sed '/^$/d' > "$work/shown"
if ! diff -u "$work/expected" "$work/shown"; then
  echo "the page's stepper does not show trace's states in order"
  exit 1
fi
# The lost update itself: outcome 1 ends with x = [[3,3]], D's update lost.
grep -q '^VarValue: x = i32:\[\[3,3\]\]$' "$work/shown" || { echo "no lost update shown"; exit 1; }

# Figure 1's page opens on the paper's Figure 2 (B and C on the inputs, x = A)
# and, after 8 steps of outcome 1's witness, on Figure 3 (both Assign-Adds'
# inputs in transit): the state below the buttons, as trace writes it.
"$TFSEM" check "$SRC/models/figure-1-assign-add.json" --html "$work/f1.html" > /dev/null || [ $? -eq 1 ]
state() { sed -n '/<pre id="state"/,/<\/pre>/p' "$1" | sed 's/^ *<pre id="state"[^>]*>//; s/<\/pre>.*//'; }
dom "$work/f1.html" "witness=0&step=0" > "$work/figure-2.dom"
printf 'VarValue: x = A\nInTransit: go_var_write = GO, b = B, c = C, go_var_read = GO\n' > "$work/figure-2"
state "$work/figure-2.dom" | diff -u "$work/figure-2" - || { echo "Figure 1's page does not open on Figure 2"; exit 1; }
dom "$work/f1.html" "witness=0&step=8" > "$work/figure-3.dom"
printf 'VarValue: x = B\nInTransit: x_assign_1 = x, d = Project(Split.0(C)), x_assign_2 = x, e = Project(Split.1(C)), x_read = x\n' > "$work/figure-3"
state "$work/figure-3.dom" | diff -u "$work/figure-3" - || { echo "Figure 1's page does not show Figure 3 at step 8"; exit 1; }

# A while loop's page: at step 3 the Enters' tokens are on edges of iteration 0.
"$TFSEM" trace "$SRC/models/thesis-figure-4-while.json" --html "$work/while.html" > /dev/null
dom "$work/while.html" "step=3" > "$work/while.dom"
grep -q '@while:0</tspan>' "$work/while.dom" || { echo "no context on the while loop's edges"; exit 1; }
grep -q 'frame while (parallel_iterations' "$work/while.dom" || { echo "no cluster for the loop's frame"; exit 1; }
echo "the pages step through trace's states ($steps steps, forward and back), show Figures 2 and 3, and show contexts"
