#!/bin/bash
# Checks every graph of the corpus of real TensorFlow graphs (corpus.tsv) and compares
# each run with its recorded expectation: the exit status, and a line of the report
# (the verdict, the stop's reason, or the error) matched as an extended regex.
#
# usage: run-corpus.sh TFSEM CORPUS_DIR TSV [JOBS]
#   CORPUS_DIR holds the graph files that corpus.tsv names (they are data from other
#   repositories, kept beside the project, not in it: see README.md). Without it the
#   test is skipped (exit 77).
# Each graph runs under its own --timeout (the tsv's options) and an outer wall-clock
# limit, so a hang or a crash is reported as such, never waited on.
set -u
tfsem=$1 dir=$2 tsv=$3 jobs=${4:-2}
if [ ! -d "$dir" ]; then
  echo "corpus: no graphs at $dir (set TFSEM_CORPUS_DIR); skipped"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# one row: ROW FILE OPTIONS EXIT EXPECT MARK -> "ok ..." or "FAIL ..." on stdout
check_one() {
  local row=$1 file=$2 options=$3 want=$4 expect=$5 mark=$6
  local label="$2 $3" out=$work/row$1.out rc start secs
  [ "$mark" = - ] && mark=
  if [ ! -e "$dir/$file" ]; then echo "FAIL $label: missing from $dir"; return; fi
  start=$(date +%s.%N)
  # shellcheck disable=SC2086  # options are words
  timeout -k 5 120 "$tfsem" check "$dir/$file" $options > "$out" 2>&1
  rc=$?
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  if [ $rc -ge 124 ]; then
    echo "FAIL $label: exit $rc (hang or crash) after ${secs}s"; tail -3 "$out" | sed 's/^/    /'; return
  fi
  if [ "$rc" != "$want" ]; then
    echo "FAIL $label: exit $rc, expected $want (${secs}s)"
    grep -E '^(verdict|INCOMPLETE|tfsem: error|violation)' "$out" | head -3 | sed 's/^/    /'; return
  fi
  if ! grep -qE -- "$expect" "$out"; then
    echo "FAIL $label: no line matches '$expect' (${secs}s)"
    grep -E '^(verdict|INCOMPLETE|tfsem: error)' "$out" | head -3 | sed 's/^/    /'; return
  fi
  printf 'ok   %s (exit %s, %.1fs)%s\n' "$label" "$rc" "$secs" "${mark:+ [$mark]}"
}
# columns (tab-separated, none empty: '-' for no mark): file kind repository path commit licence options exit expect mark
row=0
while IFS=$'\t' read -r file _kind _repo _path _commit _licence options want expect mark; do
  row=$((row + 1))
  case $file in '#'*|file|'') continue ;; esac
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  check_one "$row" "$file" "$options" "$want" "$expect" "$mark" > "$work/result$row" &
done < "$tsv"
wait
cat "$work"/result* > "$work/results"
sort -k2 "$work/results"
passed=$(grep -c '^ok' "$work/results")
failed=$(grep -c '^FAIL' "$work/results")
known=$(grep -c '\[known-wrong' "$work/results")
[ "$known" -gt 0 ] && echo "corpus: $known results recorded as known-wrong (the tsv's mark says why)"
echo "corpus: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
