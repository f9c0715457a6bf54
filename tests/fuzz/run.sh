#!/bin/bash
# Runs every fuzz harness (or those HARNESSES names) for SECONDS each (default
# 60; with RUNS set, until it has executed RUNS inputs if that comes first;
# with SEED set, libFuzzer's random seed, so that a run of RUNS inputs is the
# same on every machine),
# JOBS at a time (default 2), from the checked-in corpus and dictionary, and
# reports for each the inputs executed, the coverage (code edges and
# libFuzzer's features), the corpus size and the crashes. A crash leaves its input in BUILD/fuzz/crashes;
# add it to tests/regressions (README there) and fix it. Exits 1 on a crash.
#   tests/fuzz/run.sh [SECONDS] [BUILD]        BUILD: a TFSEM_FUZZ=ON build (default build-fuzz)
#   tests/fuzz/run.sh --merge [BUILD]          minimizes the checked-in corpus with what the runs found
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = "--merge" ]; then
  merge=1 seconds=0 build=${2:-build-fuzz}
else
  merge=0 seconds=${1:-60} build=${2:-build-fuzz}
fi
jobs=${JOBS:-2}
read -r -a harnesses <<< "${HARNESSES:-fuzz_graph fuzz_check fuzz_conform fuzz_inputs fuzz_graphdef}"
corpus_of() {
  case $1 in
    fuzz_inputs) echo tests/fuzz/corpus/inputs ;;
    fuzz_graphdef) echo tests/fuzz/corpus/graphdefs ;;
    *) echo tests/fuzz/corpus/graphs ;;
  esac
}
dict_of() { [ "$1" = fuzz_graphdef ] && echo tests/fuzz/graphdef.dict || echo tests/fuzz/tfsem.dict; }
out=$build/fuzz
mkdir -p "$out/crashes"
for h in "${harnesses[@]}"; do
  [ -x "$build/tests/fuzz/$h" ] || { echo "no $build/tests/fuzz/$h: configure with CC=clang CXX=clang++ -DTFSEM_FUZZ=ON"; exit 2; }
done

if [ "$merge" = 1 ]; then
  # Each checked-in corpus keeps the smallest inputs that cover every code edge
  # (hit counts aside) any harness reading it reaches, from what it holds and
  # what the runs found under 2 KiB, to stay small.
  for dir in tests/fuzz/corpus/graphs tests/fuzz/corpus/inputs tests/fuzz/corpus/graphdefs; do
    readers=0
    for h in "${harnesses[@]}"; do [ "$(corpus_of "$h")" = "$dir" ] && readers=$((readers + 1)); done
    [ "$readers" -gt 0 ] || continue  # no harness chosen reads it: left as it is
    rm -rf "$out/merged" "$out/found" && mkdir -p "$out/merged" "$out/found"
    for h in "${harnesses[@]}"; do
      [ "$(corpus_of "$h")" = "$dir" ] && find "$out/corpus/$h" -type f -size -2048c -exec cp {} "$out/found" \;
    done
    for h in "${harnesses[@]}"; do
      [ "$(corpus_of "$h")" = "$dir" ] || continue
      "$build/tests/fuzz/$h" -merge=1 -use_counters=0 -max_len=16384 -timeout=30 \
        -artifact_prefix="$out/crashes/$h-merge-" "$out/merged" "$dir" "$out/found" 2> "$out/$h.merge.log"
    done
    rm -rf "$dir" && mv "$out/merged" "$dir"
    echo "$dir: $(ls "$dir" | wc -l) inputs, $(cat "$dir"/* | wc -c) bytes"
  done
  exit 0
fi

run() {  # one harness, its output in $out/$h.log
  local h=$1
  rm -rf "$out/corpus/$h" && mkdir -p "$out/corpus/$h"
  "$build/tests/fuzz/$h" "$out/corpus/$h" "$(corpus_of "$h")" -dict="$(dict_of "$h")" -max_len=16384 \
    -max_total_time="$seconds" -runs="${RUNS:--1}" -seed="${SEED:-0}" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$out/crashes/$h-" > "$out/$h.log" 2>&1
}
running=0
for h in "${harnesses[@]}"; do
  run "$h" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

status=0
printf '| harness | inputs executed | inputs/s | coverage (edges) | features | corpus | crashes |\n|---|---|---|---|---|---|---|\n'
for h in "${harnesses[@]}"; do
  log=$out/$h.log
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$')
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*$')
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*$')
  corpus=$(ls "$out/corpus/$h" | wc -l)
  crashes=$(ls "$out/crashes" | grep -c "^$h-")
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$h" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$corpus" "$crashes"
  if [ "$crashes" -gt 0 ] || ! grep -q 'stat::number_of_executed_units' "$log"; then
    status=1
    echo "$h: see $log"; grep -E -A30 '^==[0-9]+==|fuzz oracle failed|deadly signal' "$log" | head -40
  fi
done
exit $status
