#!/bin/sh
# Writes a GraphDef (text format) with nodes of many inputs and outputs:
#   wide-graph.sh addn N    sum = AddN(c0, ..., cN-1) of N constants
#   wide-graph.sh saver N   N variables and the Saver TensorFlow 1 gives them:
#                           save/SaveV2 takes N + 3 inputs, save/RestoreV2 has N
#                           outputs, save/restore_all N control inputs; beside
#                           them, y = x + 1 of a placeholder x
set -eu
kind=$1 n=$2
int_const() {  # NAME VALUE
  echo "node { name: \"$1\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } } attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: $2 } } } }"
}
string_const() {  # NAME
  echo "node { name: \"$1\" op: \"Const\" attr { key: \"dtype\" value { type: DT_STRING } } attr { key: \"value\" value { tensor { dtype: DT_STRING tensor_shape { } string_val: \"$1\" } } } }"
}
case $kind in
  addn)
    i=0; inputs=""
    while [ $i -lt "$n" ]; do int_const "c$i" "$i"; inputs="$inputs input: \"c$i\""; i=$((i + 1)); done
    echo "node { name: \"sum\" op: \"AddN\" $inputs attr { key: \"N\" value { i: $n } } }"
    ;;
  saver)
    i=0; values=""; assigns=""
    while [ $i -lt "$n" ]; do
      echo "node { name: \"v$i\" op: \"VariableV2\" attr { key: \"dtype\" value { type: DT_INT32 } } attr { key: \"shape\" value { shape { } } } }"
      echo "node { name: \"save/Assign_$i\" op: \"Assign\" input: \"v$i\" input: \"save/RestoreV2:$i\" }"
      values="$values input: \"v$i\""; assigns="$assigns input: \"^save/Assign_$i\""; i=$((i + 1))
    done
    for c in save/Const save/SaveV2/tensor_names save/SaveV2/shape_and_slices; do string_const $c; done
    echo "node { name: \"save/SaveV2\" op: \"SaveV2\" input: \"save/Const\" input: \"save/SaveV2/tensor_names\" input: \"save/SaveV2/shape_and_slices\" $values }"
    echo "node { name: \"save/control_dependency\" op: \"Identity\" input: \"save/Const\" input: \"^save/SaveV2\" }"
    echo "node { name: \"save/RestoreV2\" op: \"RestoreV2\" input: \"save/Const\" input: \"save/SaveV2/tensor_names\" input: \"save/SaveV2/shape_and_slices\" }"
    echo "node { name: \"save/restore_all\" op: \"NoOp\" $assigns }"
    echo "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_INT32 } } }"
    int_const one 1
    echo "node { name: \"y\" op: \"Add\" input: \"x\" input: \"one\" }"
    ;;
esac
