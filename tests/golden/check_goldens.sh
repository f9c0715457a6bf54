#!/bin/sh
# Golden results of the models: each models/golden/NAME.txt holds blocks that
# start with a line "# tfsem ARGS", followed by that command's output (run
# from the source directory; time and memory lines left out). Every model in
# models/ must have a golden file. With TFSEM_PROMOTE=1 the files are
# re-recorded and the differences shown. PART and PARTS (default 0 and 1)
# check every PARTS-th golden file from the PART-th (counting from 0), in
# alphabetical order; part 0 also checks that every model has one.
# Usage: check_goldens.sh TFSEM SOURCE_DIR [PART PARTS]
set -u
TFSEM=$1
cd "$2" || exit 2
part=${3:-0} parts=${4:-1}
status=0
if [ "$part" = 0 ]; then
  for model in models/*.json; do
    name=$(basename "$model" .json)
    [ -f "models/golden/$name.txt" ] || { echo "no golden file for $model (models/golden/$name.txt)"; status=1; }
  done
fi
i=-1
for golden in models/golden/*.txt; do
  i=$((i + 1))
  [ $((i % parts)) = "$part" ] || continue
  actual=$(mktemp)
  grep '^# tfsem ' "$golden" | while IFS= read -r header; do
    echo "$header"
    # shellcheck disable=SC2086
    "$TFSEM" ${header#\# tfsem } 2>&1 | grep -v -E '^(time: |memory: |seconds |memory-kib |bytes-per-state |store-bytes-per-state )'
  done > "$actual"
  if ! diff -u "$golden" "$actual" > "$actual.diff"; then
    if [ "${TFSEM_PROMOTE:-0}" = 1 ]; then
      echo "re-recorded $golden:"; cat "$actual.diff"; cp "$actual" "$golden"
    else
      echo "$golden differs (TFSEM_PROMOTE=1 re-records it):"; cat "$actual.diff"; status=1
    fi
  fi
  rm -f "$actual" "$actual.diff"
done
exit $status
