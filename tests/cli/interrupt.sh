#!/bin/bash
# Ctrl-C during a long check (lost-update-8): tfsem stops
# at once and prints the report so far, INCOMPLETE, with its counters and the
# outcomes found so far marked "(at least)", and exits 3 as for any limit.
# Usage: interrupt.sh TFSEM
set -u
tfsem=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tfsem" generate lost-update 8 -o "$work/g.json" || exit 1
set -m  # job control: the job gets SIGINT as a foreground command would, not ignored as a background one
"$tfsem" check "$work/g.json" > "$work/out" 2>&1 &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
cat "$work/out"
[ "$rc" -eq 3 ] || { echo "exit code $rc, expected 3"; exit 1; }
for line in '^INCOMPLETE: stopped by interrupt$' '^outcomes: [0-9]+ \(at least\)$' '^verdict: incomplete$' \
  '^states-stored: [1-9][0-9]*$' '^transitions: [1-9][0-9]*$' '^time: '; do
  grep -Eq "$line" "$work/out" || { echo "no line matches '$line'"; exit 1; }
done
