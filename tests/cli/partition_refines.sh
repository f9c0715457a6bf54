#!/bin/bash
# X-PARTITION against X-REFINES on tests/import/graphs/alias-copy.pbtxt
# (docs/devices.md): with snapshot reads the graph and its partition refine
# each other; under --tf1-refs (S-DEREF) the partition has y = 2, which the
# graph on one device lacks, and the witness fires the Send of x before the
# assign. A partitioned graph's pairs run in the fast executor (conform) and
# in the Promela export of a graph without control flow; a Send of a
# variable edge is refused by the executor (X-EXEC).
# Usage: partition_refines.sh TFSEM (run in the repository's root)
set -u
tfsem=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
graph=tests/import/graphs/alias-copy.pbtxt
fail() { echo "FAIL: $*"; exit 1; }

# expect NAME EXIT PATTERN COMMAND...: COMMAND exits EXIT and prints PATTERN
# (an ERE, matched against the output with its lines joined by spaces).
expect() {
  local name=$1 code=$2 pattern=$3
  shift 3
  local out
  out=$("$@" 2>&1)
  local rc=$?
  [ "$rc" -eq "$code" ] || fail "$name: exit $rc, expected $code: $out"
  grep -Eq -- "$pattern" <<< "${out//$'\n'/ }" || fail "$name: no '$pattern' in: $out"
}

for form in snapshot tf1-refs; do
  flags=(--initialized --fetch y:0)
  [ "$form" = tf1-refs ] && flags+=(--tf1-refs)
  "$tfsem" import "$graph" "${flags[@]}" -o "$work/$form-one.json" > /dev/null 2>&1 || fail "$form: import"
  "$tfsem" partition "$work/$form-one.json" -o "$work/$form-two.json" || fail "$form: partition"
  expect "$form: the pair" 0 '"op": "Send"' cat "$work/$form-two.json"
done
expect "snapshot: partition refines" 0 'verdict: refines' "$tfsem" refines "$work/snapshot-one.json" "$work/snapshot-two.json"
expect "snapshot: and back" 0 'verdict: refines' "$tfsem" refines "$work/snapshot-two.json" "$work/snapshot-one.json"
expect "tf1-refs: one outcome on one device" 0 'outcomes: 1.*y:0=f32:10.0' "$tfsem" check "$work/tf1-refs-one.json"
expect "tf1-refs: the copy taken before the assign" 1 \
  'not in the specification: y:0=f32:2.0; x=f32:5.0 [|] witness [^ ]*,send/[^,]*x/read_0,[^ ]*,assign,[^ ]*,y verdict: does not refine' \
  "$tfsem" refines "$work/tf1-refs-one.json" "$work/tf1-refs-two.json"
expect "tf1-refs: the partition keeps the graph's outcome" 0 'verdict: refines' \
  "$tfsem" refines "$work/tf1-refs-two.json" "$work/tf1-refs-one.json"
expect "tf1-refs: the race of the Send and the assign, and its fix" 1 \
  'race: assign send/[^ ]* [|] variable x [|] harmful fix: add control edge assign -> send/[^ ]* [|] verified deterministic: y:0=f32:10.0' \
  "$tfsem" check "$work/tf1-refs-two.json"
expect "tf1-refs: the executor refuses a Send of a variable edge" 2 'a Send of a variable edge .*\[X-EXEC\]' \
  "$tfsem" run "$work/tf1-refs-two.json"

"$tfsem" partition models/counter.json --devices a,b --assign round-robin --every-edge -o "$work/counter.json" || fail "counter: partition"
expect "counter: the executor runs the pairs" 0 'verdict: conforms' "$tfsem" conform "$work/counter.json"
expect "counter: the Promela export writes them" 0 'proctype n[0-9]+[(][)] [{] /[*] send/[^ ]*: Send [*]/' \
  "$tfsem" export --promela "$work/counter.json"
echo "ok"
