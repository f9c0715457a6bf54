#!/bin/bash
# Every limit holds in every phase: --timeout and SIGTERM stop the import, the
# search and the search for fixes, INCOMPLETE (exit 3), naming the phase, with
# what was found so far, well within a margin of the limit (the limit itself
# is half a second; the margin here is wide, for a loaded machine).
# With `json`, the report is the JSON one (a stop during import: an object
# saying so, not the text line).
# Usage: stop_phases.sh TFSEM PHASE HOW [json], PHASE import, search or fixes, HOW timeout or sigterm
set -u
tfsem=$1 phase=$2 how=$3 form=${4:-text}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
case $phase in
  import)  # a text GraphDef of 200,000 Adds: seconds to parse and import
    bash "$(dirname "$0")/wide_graphdef.sh" 200000 > "$work/g.pbtxt"
    args=(check "$work/g.pbtxt") after=0.5
    lines=("^INCOMPLETE: stopped by %s during import$") ;;
  search)  # lost-update-8: minutes of search
    "$tfsem" generate lost-update 8 -o "$work/g.json" || exit 1
    args=(check "$work/g.json") after=1
    lines=("^INCOMPLETE: stopped by %s$" '^outcomes: [0-9]+ \(at least\)$' '^verdict: incomplete$' '^states-stored: [1-9][0-9]*$') ;;
  fixes)  # lost-update-7: a search of about 2 s (4 on a loaded machine), then every
    # single fix verified, about 2 minutes; under a sanitizer (FIXES_GRAPH=6),
    # lost-update-6: a search of a few seconds, then its fixes, about a minute
    case ${FIXES_GRAPH:-7} in
      7) after=6 outcomes=28 states=684284 ;;
      6) after=8 outcomes=21 states=49368 ;;
      *) echo "no FIXES_GRAPH ${FIXES_GRAPH}"; exit 1 ;;
    esac
    "$tfsem" generate lost-update "${FIXES_GRAPH:-7}" -o "$work/g.json" || exit 1
    args=(check "$work/g.json" --fix-budget 1000)
    lines=("^INCOMPLETE: stopped by %s in the search for fixes$" "^outcomes: $outcomes\$" '^verdict: nondeterministic$'
           "^states-stored: $states\$") ;;
  *) echo "no phase $phase"; exit 1 ;;
esac
if [ "$form" = json ]; then
  [ "$phase" = import ] || { echo "json: the import phase only"; exit 1; }
  args+=(--json)
  lines=('^  "complete": false,$' '^  "phase": "during import",$' '^  "stopped_by": "%s"$')
fi
start=$(now)
if [ "$how" = timeout ]; then
  "$tfsem" "${args[@]}" --timeout "$after" > "$work/out" 2> "$work/err"
  rc=$? reason=timeout
else
  "$tfsem" "${args[@]}" > "$work/out" 2> "$work/err" &
  pid=$!
  sleep "$after"
  kill -TERM "$pid"
  wait "$pid"
  rc=$? reason=interrupt
fi
took=$(awk -v a="$start" -v b="$(now)" -v l="$after" 'BEGIN { printf "%.2f", b - a - l }')
cat "$work/out" "$work/err"
echo "phase $phase, $how after ${after}s: exit $rc, ${took}s after the limit"
[ "$rc" -eq 3 ] || { echo "exit code $rc, expected 3"; exit 1; }
for line in "${lines[@]}"; do
  # shellcheck disable=SC2059
  pattern=$(printf "$line" "$reason")
  grep -Eq "$pattern" "$work/out" || { echo "no line matches '$pattern'"; exit 1; }
done
awk -v t="$took" 'BEGIN { exit !(t < 2.5) }' || { echo "stopped ${took}s after the limit"; exit 1; }
