


nÿNoOp