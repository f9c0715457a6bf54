#!/bin/sh
# check on graphs in the shape of real training steps, beside lost-update-7:
# an LSTM training step over a tf.while_loop with Adam (lstm-training), a CNN
# training step with batch norm, Adam and a Saver (cnn-training), each checked
# as a training step's session.run: the loss fetched, the Saver pruned away.
# Usage: bench/real_shapes.sh [TFSEM] [TIMEOUT_S] [LSTM_LAYERS] [CNN_BLOCKS]
#   (prints a Markdown table: graph, nodes, states stored, firings, seconds, states and firings per second)
set -eu
TFSEM=${1:-./build/cli/tfsem}
TIMEOUT=${2:-60}
LSTM=${3:-12}
CNN=${4:-49}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '| graph | nodes | states stored | firings | seconds | states per second | firings per second | result |\n'
printf '|---|---|---|---|---|---|---|---|\n'
row() {
  family=$1 n=$2
  shift 2
  "$TFSEM" generate "$family" "$n" -o "$tmp/g.json"
  "$TFSEM" check "$tmp/g.json" --no-fix --timeout "$TIMEOUT" --json "$@" > "$tmp/r.json" || true
  python3 - "$tmp/g.json" "$tmp/r.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
states, firings, seconds = r["counters"]["states_stored"], r["counters"]["firings"], r["seconds"]
rate = lambda n: "%.0f" % (n / seconds) if seconds > 0 else "n/a"
result = r["verdict"] if r["complete"] else "stopped by " + r["stopped_by"]
print("| %s | %d | %d | %d | %.2f | %s | %s | %s |" % (g["name"], len(g["nodes"]), states, firings, seconds, rate(states), rate(firings), result))
PY
}
row lost-update 7
row lstm-training "$LSTM" --fetch loss
row cnn-training "$CNN" --fetch loss
