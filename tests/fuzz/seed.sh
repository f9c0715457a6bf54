#!/bin/bash
# Writes the fuzzers' seed inputs into OUT: OUT/graphs (the shipped models,
# the malformed graphs, small family members and seeded random graphs, with
# and without control flow, as compact JSON) and OUT/inputs (for each shipped
# model, its name, its first input edge fed its own value, then each witness
# schedule `tfsem check` writes for it) and OUT/graphdefs (each GraphDef under
# tests/import, as text and encoded as binary, and the JSON ones, after the
# byte fuzz_graphdef reads first: 0 binary, 1 text, 2 JSON; 4 added: variables
# initialized). tests/fuzz/corpus holds these and
# what the fuzzers found, minimized by coverage (tests/fuzz/run.sh --merge).
# Usage: tests/fuzz/seed.sh TFSEM OUT
set -euo pipefail
tfsem=$1 out=$2
cd "$(dirname "$0")/../.."
mkdir -p "$out/graphs" "$out/inputs" "$out/graphdefs"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for f in $(seq 1 3); do
  for family in independent-chains lastwrite lost-update assign-add sgd-workers; do
    "$tfsem" generate "$family" "$f" -o "$work/$family-$f.json"
  done
done
for seed in $(seq 1 40); do
  "$tfsem" generate random "$seed" -o "$work/random-$seed.json"
  "$tfsem" generate random-control "$seed" -o "$work/random-control-$seed.json"
done
python3 - "$out" "$work" <<'PY'
import glob, json, os, subprocess, sys
out, work = sys.argv[1:]
def compact(path):
    try:
        return json.dumps(json.load(open(path)), separators=(",", ":")).encode()
    except ValueError:  # malformed on purpose: as it is
        return open(path, "rb").read()
for path in sorted(glob.glob("models/*.json")) + sorted(glob.glob("tests/malformed/*/*.json")) + sorted(glob.glob(work + "/*.json")):
    name = "generated_" + os.path.basename(path) if path.startswith(work) else path.replace("/", "_")
    open(os.path.join(out, "graphs", name), "wb").write(compact(path))
PY
for model in models/*.json; do
  name=$(basename "$model" .json)
  feed=$(python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
e = next((e for e in g["edges"] if "value" in e and "from" not in e and e["kind"] != "control"), None)
print("" if e is None else e["id"] + "=" + json.dumps(e["value"], separators=(",", ":")))' "$model")
  rm -rf "$work/w"
  "$tfsem" check "$model" --no-fix --max-states 100000 --witness-dir "$work/w" > /dev/null || true
  for schedule in "$work"/w/*.schedule; do
    [ -f "$schedule" ] || continue
    { printf '%s\n%s\n' "$name" "$feed"; cat "$schedule"; } > "$out/inputs/$name-$(basename "$schedule")"
  done
done
for graphdef in $(find tests/import -name '*.pbtxt' -o -name '*.json' | sort); do
  name=$(echo "${graphdef#tests/import/}" | tr / _)
  if [ "${graphdef##*.}" = json ]; then
    { printf '\x02'; cat "$graphdef"; } > "$out/graphdefs/$name"
    continue
  fi
  { printf '\x01'; cat "$graphdef"; } > "$out/graphdefs/$name"
  { printf '\x05'; cat "$graphdef"; } > "$out/graphdefs/initialized_$name"
  { printf '\x00'; protoc -Iformats/json/graphdef --encode=tfsem.graphdef.GraphDef \
      formats/graphdef/graphdef.proto < "$graphdef"; } > "$out/graphdefs/${name%.pbtxt}.pb" 2>/dev/null ||
    rm -f "$out/graphdefs/${name%.pbtxt}.pb"  # a malformed text graph has no binary form
done
