#!/bin/sh
# Writes the binary test graphs of graphs/ from their text sources with protoc
# and tfsem's graphdef.proto: saved-model/saved_model.pb (a SavedModel's
# directory) from saved-model.pbtxt, keras-saved-model/saved_model.pb from
# keras-saved-model.pbtxt, and model.meta from meta-graph.pbtxt.
# With --check, compares them instead (the ctest import_binary_graphs).
set -eu
cd "$(dirname "$0")/graphs"
proto=../../../formats/graphdef
encode() {  # MESSAGE SOURCE TARGET
  if [ "${check:-}" ]; then
    protoc -I"$proto" --encode="tfsem.graphdef.$1" graphdef.proto < "$2" | cmp - "$3"
  else
    protoc -I"$proto" --encode="tfsem.graphdef.$1" graphdef.proto < "$2" > "$3"
  fi
}
[ "${1:-}" = --check ] && check=1
encode SavedModel saved-model.pbtxt saved-model/saved_model.pb
encode SavedModel keras-saved-model.pbtxt keras-saved-model/saved_model.pb
encode MetaGraphDef meta-graph.pbtxt model.meta
