#!/bin/sh
# Golden results of the models: each models/golden/NAME.txt holds blocks that
# start with a line "# tfsem ARGS", followed by that command's output (run
# from the source directory; time and memory lines left out). Every model in
# models/ must have a golden file. With TFSEM_PROMOTE=1 the files are
# re-recorded and the differences shown.
# Usage: check_goldens.sh TFSEM SOURCE_DIR
set -u
TFSEM=$1
cd "$2" || exit 2
status=0
for model in models/*.json; do
  name=$(basename "$model" .json)
  [ -f "models/golden/$name.txt" ] || { echo "no golden file for $model (models/golden/$name.txt)"; status=1; }
done
for golden in models/golden/*.txt; do
  actual=$(mktemp)
  grep '^# tfsem ' "$golden" | while IFS= read -r header; do
    echo "$header"
    # shellcheck disable=SC2086
    "$TFSEM" ${header#\# tfsem } 2>&1 | grep -v -E '^(time: |seconds |memory-kib |bytes-per-state |store-bytes-per-state )'
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
