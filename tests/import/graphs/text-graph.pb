# A GraphDef in protobuf's text format under a binary file's name, as users save one: y = x + 1.
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }
node { name: "y" op: "Add" input: "x" input: "one" attr { key: "T" value { type: DT_INT32 } } }
