#!/bin/bash
# An allocation that fails under a limit the tool did not choose (ulimit -v)
# is a stop, never an internal error: INCOMPLETE: out of memory, exit 3,
# naming the phase, with the counters and what was found so far.
# --max-memory is set high, so that the address space runs out first.
# Usage: out_of_memory.sh TFSEM PHASE, PHASE import or search
set -u
tfsem=$1 phase=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case $phase in
  import)  # a text GraphDef of 200,000 Adds, which the import holds in about 400 MiB
    bash "$(dirname "$0")/wide_graphdef.sh" 200000 > "$work/g.pbtxt"
    file=$work/g.pbtxt kib=200000
    lines=('^INCOMPLETE: out of memory during import$') ;;
  search)  # lost-update-8, whose search needs far more than 200 MiB
    "$tfsem" generate lost-update 8 -o "$work/g.json" || exit 1
    file=$work/g.json kib=200000
    lines=('^INCOMPLETE: out of memory$' '^outcomes: [0-9]+ \(at least\)$' '^verdict: incomplete$' '^race: '
           '^states-stored: [1-9][0-9]*$' '^transitions: [1-9][0-9]*$') ;;
  *) echo "no phase $phase"; exit 1 ;;
esac
sh -c "ulimit -v $kib && exec \"\$0\" check \"\$1\" --max-memory 100000" "$tfsem" "$file" > "$work/out" 2> "$work/err"
rc=$?
cat "$work/out" "$work/err"
echo "phase $phase under ulimit -v $kib: exit $rc"
[ "$rc" -eq 3 ] || { echo "exit code $rc, expected 3"; exit 1; }
for line in "${lines[@]}"; do
  grep -Eq "$line" "$work/out" || { echo "no line matches '$line'"; exit 1; }
done
