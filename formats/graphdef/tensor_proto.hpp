// TensorFlow's TensorProto as a tfsem tensor. Element types tfsem holds are
// widened without loss: int8, int16, uint8 and uint16 to i32, uint32 (and
// uint64 within range) to i64, half and bfloat16 to f32. A malformed proto is
// an InputError (I-TENSOR) naming `where` and the field.
#pragma once

#include "formats/graphdef/graphdef.pb.h"
#include "semantics/tensor.hpp"

#include <optional>
#include <string>

namespace tfsem::graphdef {

// The tensor, or nullopt for an element type tfsem has no tensors of (strings,
// complex numbers, quantized types, resources, variants) once the shape is valid.
std::optional<Tensor> to_tensor(const TensorProto& proto, const std::string& where);

// The shape a TensorShapeProto gives; unknown ranks and dimensions are refused.
Shape to_shape(const TensorShapeProto& proto, const std::string& where);

}  // namespace tfsem::graphdef
