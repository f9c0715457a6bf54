# Shared by tests/spin/check_agreement.sh and bench/spin_vs_tfsem.sh (sourced):
# how SPIN's verifier is built from model.pml, and how both tools' outcome
# sets are read, so the test and the benchmark compare the same things.

# Builds DIR/pan from DIR/model.pml: safety only, printf on (the outcome
# monitor prints), a state vector large enough for the families, and a memory
# bound (MiB) of ${PAN_MEMLIM:-4096} instead of pan's default; compiled with
# ${PAN_CFLAGS:--O2} (the agreement test's small models compile faster at -O0).
build_pan() {
  (cd "$1" && spin -a model.pml > /dev/null &&
    cc ${PAN_CFLAGS:--O2} -DSAFETY -DPRINTF -DVECTORSZ=8192 -DMEMLIM="${PAN_MEMLIM:-4096}" -w -o pan pan.c)
}

# The distinct outcomes SPIN printed in PAN_OUTPUT, sorted.
spin_outcomes() {
  grep '^OUTCOME ' "$1" | sed 's/^OUTCOME //' | sort -u
}

# The distinct outcomes of `TFSEM check MODEL [OPTION...]`, sorted.
tfsem_outcomes() {
  tfsem=$1 model=$2
  shift 2
  "$tfsem" check "$model" --no-fix "$@" | grep '^outcome: ' | sed 's/^outcome: //; s/ | .*//' | sort -u
}

# The loop bound under which `TFSEM check MODEL` is complete: 4, doubled
# while a behaviour would start iteration K of a loop (at most 64; 0 when
# even 64 is not enough).
loop_bound() {
  k=4
  while [ "$k" -le 64 ]; do
    "$1" check "$2" --no-fix --max-iterations "$k" | grep -q '^INCOMPLETE: stopped by max-iterations' || { echo "$k"; return; }
    k=$((k * 2))
  done
  echo 0
}
