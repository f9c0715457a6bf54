#!/bin/sh
# Writes the tutorial's pages (docs/tutorial.md, "Pages") into DIR, from the
# repository root: Figure 2's first example and the thesis's cond and while
# loop as traces, Figure 4's lost update as a check. tests/page checks that
# the pages here are the ones tfsem writes.
# Usage: docs/pages/make.sh TFSEM [DIR]   (DIR: docs/pages)
set -eu
TFSEM=$1
DIR=${2:-docs/pages}
"$TFSEM" trace models/first-example.json --html "$DIR/first-example.html" > /dev/null
"$TFSEM" trace models/thesis-figure-3-cond.json --html "$DIR/thesis-figure-3-cond.html" > /dev/null
"$TFSEM" trace models/thesis-figure-4-while.json --html "$DIR/thesis-figure-4-while.html" > /dev/null
"$TFSEM" check models/figure-4-lost-update.json --html "$DIR/figure-4-lost-update.html" > /dev/null || [ $? -eq 1 ]
