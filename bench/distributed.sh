#!/bin/sh
# The distributed search (tfsem check --distributed, docs/distributed.md) on
# lost-update-7 and -8 with 1, 2 and 4 ranks on this machine, beside the
# one-process search: states per second per rank, bytes exchanged per state,
# peak memory per rank, idle time. Ranks beyond this machine's cores are
# oversubscribed (they share cores), and their rows say so. Then, from the
# measured figures, the estimate of docs/distributed.md for lost-update-10 on
# 16 and 64 machines, and where the network becomes the limit.
# Usage: bench/distributed.sh [TFSEM] [RANKS...]     (prints Markdown)
set -eu
TFSEM=${1:-./build/cli/tfsem}
[ $# -gt 0 ] && shift
RANKS=${*:-1 2 4}
CORES=$(nproc)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # CI's containers run as root
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for n in 7 8; do
  "$TFSEM" generate lost-update "$n" -o "$tmp/lost-update-$n.json"
  # The exit code says the graph is nondeterministic (1): expected.
  "$TFSEM" check "$tmp/lost-update-$n.json" --no-fix --json > "$tmp/$n-single.json" || true
  for k in $RANKS; do
    mpirun -np "$k" --oversubscribe "$TFSEM" check "$tmp/lost-update-$n.json" --distributed --no-fix --json \
      > "$tmp/$n-$k.json" 2> "$tmp/$n-$k.err" || true
  done
done

python3 - "$tmp" "$CORES" $RANKS <<'PY'
import json, math, sys
tmp, cores, ranks = sys.argv[1], int(sys.argv[2]), [int(k) for k in sys.argv[3:]]
MiB = 1 << 20
rows, measured = [], {}
print("Measured on this machine (%d cores; ranks beyond them are oversubscribed and share cores):\n" % cores)
print("| graph | search | states | seconds | states/s per rank | bytes exchanged per state | peak memory per rank (MiB) | idle per rank (s) |")
print("|---|---|---|---|---|---|---|---|")
for n in (7, 8):
    s = json.load(open("%s/%d-single.json" % (tmp, n)))
    states, secs = s["counters"]["states_stored"], s["seconds"]
    print("| lost-update-%d | one process (explore.cpp) | %d | %.2f | %.0f | 0 | - | - |" % (n, states, secs, states / secs))
    measured[(n, 0)] = dict(states=states, seconds=secs)
    for k in ranks:
        r = json.load(open("%s/%d-%d.json" % (tmp, n, k)))
        states, secs, rk = r["counters"]["states_stored"], r["seconds"], r["ranks"]
        rate = sum(x["states"] for x in rk) / len(rk) / secs
        sent = sum(x["bytes_sent"] for x in rk)
        mem = max(x["memory_bytes"] for x in rk)
        idle = sum(x["idle_seconds"] for x in rk) / len(rk)
        label = "%d rank%s%s" % (k, "s" if k > 1 else "", " (oversubscribed: %d ranks on %d cores)" % (k, cores) if k > cores else "")
        complete = "" if r["complete"] else " INCOMPLETE: " + r["stopped_by"]
        print("| lost-update-%d | --distributed, %s%s | %d | %.2f | %.0f | %.1f | %.0f | %.2f |" %
              (n, label, complete, states, secs, rate, sent / states, mem / MiB, idle))
        measured[(n, k)] = dict(states=states, seconds=secs, rate=rate, bytes=sent / states, mem=mem, ranks=k)

# ---- The estimate for lost-update-10 (docs/distributed.md explains each step). ----
s7, s8 = measured[(7, 0)]["states"], measured[(8, 0)]["states"]
growth = s8 / s7
s10 = s8 * growth * growth
# The compute rate of a rank: the run of the most ranks that are not oversubscribed, with more than one
# if there is one (a single rank's successors never take the wire).
fitting = [k for k in ranks if k <= cores] or [min(ranks)]
one = measured[(8, max(fitting))]
most = measured[(8, max(ranks))]                     # the most ranks: bytes per state near (P-1)/P of all
rate = one["rate"]
per_state_bytes_wire = most["bytes"] * most["ranks"] / max(most["ranks"] - 1, 1)  # bytes per state if every successor moved
mem_per_state = (most["mem"] - 30 * MiB) / (most["states"] / most["ranks"])     # above a rank's fixed ~30 MiB
print("\nEstimate for lost-update-10 from these figures (see docs/distributed.md for the reasoning):\n")
print("- states: lost-update-8 has %.2fx the states of lost-update-7; two more steps give about %.3g states" % (growth, s10))
print("- a rank expands about %.0f states/s (the %d-rank run); each state costs about %.0f bytes on the wire when its "
      "successors leave the rank, and about %.0f bytes of memory where it is stored" % (rate, one["ranks"], per_state_bytes_wire, mem_per_state))
print("\n| machines | states per machine | memory per machine (GiB) | compute time (s) | bytes each machine sends | "
      "network time at 10 Gbit/s (s) | network time at 1 Gbit/s (s) | limit at 10 Gbit/s |")
print("|---|---|---|---|---|---|---|---|")
for p in (16, 64):
    per = s10 / p
    compute = per / rate
    sent = per_state_bytes_wire * (p - 1) / p * per
    net10, net1 = sent / (10e9 / 8), sent / (1e9 / 8)
    print("| %d | %.3g | %.1f | %.0f | %.3g | %.0f | %.0f | %s |" %
          (p, per, per * mem_per_state / (1 << 30), compute, sent, net10, net1, "network" if net10 > compute else "compute"))
# Where the network takes over: when a machine's successors leave faster than its link carries them.
print("\nA machine sends about %.0f bytes/s while it expands (%.0f states/s x %.0f bytes): the network is the limit "
      "below about %.2f Gbit/s per machine, whatever the number of machines." %
      (rate * per_state_bytes_wire, rate, per_state_bytes_wire, rate * per_state_bytes_wire * 8 / 1e9))
PY
