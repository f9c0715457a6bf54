#!/bin/sh
# The explorer's cost per execution context, side by side with the fast
# executor's on the same programs, in one run: `tfsem check` and `tfsem run`
# on while-sum (iterations) and thesis-fib (calls), as the contexts grow ten
# times. Linear contexts: the check's seconds grow as the contexts do.
# Usage: bench/contexts.sh [TFSEM]   (prints a Markdown table)
set -eu
TFSEM=${1:-./build/cli/tfsem}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

seconds() {  # the wall seconds of a command, its output dropped
  python3 - "$@" <<'PY'
import subprocess, sys, time
t = time.perf_counter()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("%.3f" % (time.perf_counter() - t))
PY
}
peak_mib() {  # the peak resident memory of a command, in MiB
  /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.0f", $1 / 1024}'
}

printf '| program | contexts | check s | check MiB | run s | check / run |\n'
printf '|---|---|---|---|---|---|\n'
row() {
  model=$1 feed=$2 contexts=$3
  shift 3
  check_s=$(seconds "$TFSEM" check "models/$model.json" --feed "$feed" --no-fix "$@")
  check_mib=$(peak_mib "$TFSEM" check "models/$model.json" --feed "$feed" --no-fix "$@")
  run_s=$(seconds "$TFSEM" run "models/$model.json" --feed "$feed")
  ratio=$(python3 -c "print('%.0fx' % ($check_s / max($run_s, 1e-3)))")
  printf '| %s `--feed %s` | %s | %s | %s | %s | %s |\n' "$model" "$feed" "$contexts" "$check_s" "$check_mib" "$run_s" "$ratio"
}
for n in 1000 10000 100000; do row while-sum "t_3=$n" "$n iterations" --max-iterations 200000; done
row thesis-fib n=10 "177 calls" --max-depth 100000
row thesis-fib n=15 "1,973 calls" --max-depth 100000
row thesis-fib n=20 "21,891 calls" --max-depth 100000
row thesis-fib n=25 "242,785 calls" --max-depth 1000000
# Commuting updates (S-COMMUTE): a call per level, each an Assign-Add on one
# variable, one order explored; each update is still a stored state.
row recursive-assign-add n=100 "100 calls" --max-depth 100000
row recursive-assign-add n=300 "300 calls" --max-depth 100000
row recursive-assign-add n=1000 "1,000 calls" --max-depth 100000
