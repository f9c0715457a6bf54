#!/bin/bash
# Progress on a terminal and nothing elsewhere: a long check, conform and fuzz
# run under script(1) (a pseudo-terminal, from bsdutils) draw a progress line
# on stderr (states, rate, memory, elapsed and the time left before the
# search's bound; runs or graphs done of all, elapsed and an estimate of the
# time left; a large graph's loading, its phase and the time elapsed), and
# write nothing on stderr when it is a file. A command that
# finished in under 2 s (a fast machine) need not have drawn one.
# Exits 77 (skipped) where script is absent.
# Usage: progress.sh TFSEM [NODES]   (the large graph's nodes: 200000; fewer
#   under the sanitizers, whose loading is slower by as much)
set -u
tfsem=$1
nodes=${2:-200000}
command -v script > /dev/null || { echo "no script (bsdutils): skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tfsem" generate lost-update 8 -o "$work/g.json" || exit 1
now() { date +%s%N; }

# expect NAME PATTERN COMMAND...: COMMAND on a terminal draws a line matching
# PATTERN (when it took 2 s or more), and with stderr a file writes nothing there.
expect() {
  local name=$1 pattern=$2 start took
  shift 2
  start=$(now)
  script -qec "$(printf '%q ' "$@") > /dev/null" /dev/null < /dev/null > "$work/$name.tty"
  took=$(( ($(now) - start) / 1000000 ))
  tr '\r' '\n' < "$work/$name.tty" | sed 's/\x1b\[K//' > "$work/$name.lines"
  if grep -Eq "^$pattern\$" "$work/$name.lines"; then
    echo "$name on a terminal: $(grep -E "^$pattern\$" "$work/$name.lines" | tail -1)"
  elif [ "$took" -ge 2000 ]; then
    cat "$work/$name.lines"
    echo "$name: no progress line on a terminal after $took ms"
    exit 1
  fi
  "$@" > /dev/null 2> "$work/$name.err"
  [ -s "$work/$name.err" ] && { cat "$work/$name.err"; echo "$name wrote on stderr that is not a terminal"; exit 1; }
  echo "$name elsewhere: nothing on stderr"
}

n='[0-9]+'
expect check "$n states, $n states/s, $n MiB, ${n}s elapsed, at most ~${n}s left \(--timeout\)" \
  "$tfsem" check "$work/g.json" --timeout 2
bash "$(dirname "$0")/wide_graphdef.sh" "$nodes" > "$work/wide.pbtxt"
expect import "loading $work/wide.pbtxt( \(during (import|validation)\))?, ${n}s elapsed" \
  "$tfsem" validate "$work/wide.pbtxt"
expect conform "run $n of 20000, ${n}s elapsed(, ~${n}s left)?" \
  "$tfsem" conform models/figure-4-lost-update.json --runs 20000
expect fuzz "graph $n of 100, $n failed, $n incomplete, ${n}s elapsed(, ~${n}s left)?" \
  "$tfsem" fuzz --count 100 --runs 200 --save-dir "$work/failures"
