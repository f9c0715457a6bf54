# Shared by tests/spin/check_agreement.sh and bench/spin_vs_tfsem.sh (sourced):
# how SPIN's verifier is built from model.pml, and how both tools' outcome
# sets are read, so the test and the benchmark compare the same things.

# Builds DIR/pan from DIR/model.pml: safety only, printf on (the outcome
# monitor prints), a state vector large enough for the families, and a memory
# bound (MiB) of ${PAN_MEMLIM:-4096} instead of pan's default.
build_pan() {
  (cd "$1" && spin -a model.pml > /dev/null &&
    cc -O2 -DSAFETY -DPRINTF -DVECTORSZ=8192 -DMEMLIM="${PAN_MEMLIM:-4096}" -w -o pan pan.c)
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
