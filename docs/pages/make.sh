#!/bin/sh
# Writes the tutorial's pages (docs/tutorial.md, "Pages") into DIR, from the
# repository root: the paper's first example (section 3.1.2) and the thesis's
# cond and while loop as traces; the paper's Figure 1 (whose initial state is
# Figure 2 and whose state after 8 steps of outcome 1 is Figure 3), its
# Assign-Concat variant and Figure 4's lost update as checks. tests/page checks
# that the pages here are the ones tfsem writes.
# Usage: docs/pages/make.sh TFSEM [DIR]   (DIR: docs/pages)
set -eu
TFSEM=$1
DIR=${2:-docs/pages}
for model in first-example thesis-figure-3-cond thesis-figure-4-while; do
  "$TFSEM" trace "models/$model.json" --html "$DIR/$model.html" > /dev/null
done
# check exits 1 on a nondeterministic verdict.
for model in figure-1-assign-add figure-1-assign-concat figure-4-lost-update; do
  "$TFSEM" check "models/$model.json" --html "$DIR/$model.html" > /dev/null || [ $? -eq 1 ]
done
