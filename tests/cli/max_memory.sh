#!/bin/bash
# --max-memory bounds the process's peak resident memory (as `time` reports
# it) within 10 percent, on a family that outgrows the limit, and the search
# does use the memory it is given (at least half of it), under the reduction
# and without one.
# Usage: max_memory.sh TFSEM   (exit 77, skipped, without GNU time)
set -u
tfsem=$1
[ -x /usr/bin/time ] || { echo "no /usr/bin/time (Debian package time)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tfsem" generate lost-update 8 -o "$work/g.json" || exit 1
status=0
for run in "64 rf" "160 rf" "160 none"; do
  read -r mib por <<< "$run"
  /usr/bin/time -f '%M' -o "$work/peak" "$tfsem" check "$work/g.json" --no-fix --max-memory "$mib" --por "$por" > "$work/out" 2>&1
  rc=$?
  peak=$(tail -n 1 "$work/peak")  # KiB
  echo "--max-memory $mib --por $por: exit $rc, peak RSS $((peak / 1024)) MiB ($peak KiB)"
  [ "$rc" -eq 3 ] && grep -q "^INCOMPLETE: stopped by max-memory $mib MiB$" "$work/out" ||
    { echo "not stopped by max-memory:"; cat "$work/out"; status=1; }
  [ "$peak" -le $((mib * 1024 * 11 / 10)) ] || { echo "peak RSS over the limit by more than 10%"; status=1; }
  [ "$peak" -ge $((mib * 1024 / 2)) ] || { echo "stopped below half the limit"; status=1; }
done
exit $status
