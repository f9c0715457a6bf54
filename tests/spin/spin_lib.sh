# Shared by tests/spin/check_agreement.sh and bench/spin_vs_tfsem.sh (sourced):
# how SPIN's verifier is built from model.pml, and how both tools' outcome
# sets are read, so the test and the benchmark compare the same things.

# Builds DIR/pan from DIR/model.pml: safety only, printf on (the outcome
# monitor prints), a state vector large enough for the families.
build_pan() {
  (cd "$1" && spin -a model.pml > /dev/null && cc -O2 -DSAFETY -DPRINTF -DVECTORSZ=8192 -w -o pan pan.c)
}

# The distinct outcomes SPIN printed in PAN_OUTPUT, sorted.
spin_outcomes() {
  grep '^OUTCOME ' "$1" | sed 's/^OUTCOME //' | sort -u
}

# The distinct outcomes of `TFSEM check MODEL`, sorted.
tfsem_outcomes() {
  "$1" check "$2" --no-fix | grep '^outcome: ' | sed 's/^outcome: //; s/ | .*//' | sort -u
}
