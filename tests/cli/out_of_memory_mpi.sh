#!/bin/bash
# Under mpirun, one rank whose allocation fails (its own ulimit -v) stops every
# rank: rank 0 reports INCOMPLETE: out of memory, with the counters and what
# was found so far, and every rank exits 3. The limit is tried from low to
# high; one at which Open MPI's own shared memory fails to map (its message)
# or the job does not end says nothing of tfsem and is skipped. Exit 77 (the
# test skipped) when no limit gets past Open MPI's start.
# Usage: out_of_memory_mpi.sh MPIEXEC TFSEM
set -u
mpiexec=$1 tfsem=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tfsem" generate lost-update 7 -o "$work/g.json" || exit 1
run=(check "$work/g.json" --distributed --no-fix --max-memory 100000)
for kib in 140000 150000 160000 180000; do
  timeout 120 "$mpiexec" --oversubscribe -np 1 "$tfsem" "${run[@]}" : -np 1 \
    sh -c "ulimit -v $kib && exec \"\$0\" \"\$@\"" "$tfsem" "${run[@]}" > "$work/out" 2>&1
  rc=$?
  echo "rank 1 under ulimit -v $kib: exit $rc"
  if [ "$rc" -eq 124 ] || grep -q "A system call failed during shared memory initialization" "$work/out"; then
    continue  # Open MPI's own allocation failed
  fi
  cat "$work/out"
  [ "$rc" -eq 3 ] || { [ "$rc" -eq 1 ] && grep -q '^verdict: nondeterministic$' "$work/out" && continue; echo "exit code $rc, expected 3"; exit 1; }
  for line in '^INCOMPLETE: out of memory$' '^outcomes: [0-9]+ \(at least\)$' '^verdict: incomplete$' \
              '^states-stored: [1-9][0-9]*$' '^rank: 1 \| states [1-9]'; do
    grep -Eq "$line" "$work/out" || { echo "no line matches '$line'"; exit 1; }
  done
  exit 0
done
echo "no limit ran out in tfsem's own allocations: skipped"
exit 77
