

cConst*
valueB