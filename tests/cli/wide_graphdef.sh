#!/bin/bash
# Writes a text GraphDef of N Add nodes, each of one constant with itself, to
# stdout: seconds to parse and import at N = 200,000, and about 400 MiB held.
# Usage: wide_graphdef.sh N
awk -v n="$1" 'BEGIN {
  print "node { name: \"c\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }"
  for (i = 0; i < n; i++)
    printf "node { name: \"a%d\" op: \"Add\" input: \"c\" input: \"c\" attr { key: \"T\" value { type: DT_FLOAT } } }\n", i
}'
