// Kernels of the registry's functions on dense tensors. Every failure is a
// value: an error element of Tensors (footnote 2), never an exception.
// Integer arithmetic wraps around (two's complement), as TensorFlow's does.
#pragma once

#include "semantics/scalar.hpp"
#include "semantics/tensor.hpp"

#include <optional>
#include <string_view>
#include <utility>

namespace tfsem::kernels {

enum class Binary { add, sub, mul, div, less, equal };
enum class Unary { neg, square, sigmoid, relu };
enum class Reduce { sum, mean };

// Same shapes, or one operand a scalar (broadcast).
Tensor binary(Binary op, std::string_view name, const Tensor& a, const Tensor& b);
// The same on two scalars of one dtype, without a Tensor: nullopt where
// binary decides otherwise (an error element).
std::optional<Scalar> binary_scalar(Binary op, const Scalar& a, const Scalar& b);
Tensor unary(Unary op, std::string_view name, const Tensor& a);
Tensor matmul(const Tensor& a, const Tensor& b);
// Over all elements (to a scalar) or along one axis.
Tensor reduce(Reduce op, std::string_view name, const Tensor& a, std::optional<std::int64_t> axis);
Tensor concat(const Tensor& a, const Tensor& b, std::int64_t axis);
std::pair<Tensor, Tensor> split(const Tensor& a, std::int64_t axis);
// Elements [begin, end) along axis 0.
Tensor project(const Tensor& a, std::int64_t begin, std::optional<std::int64_t> end);

}  // namespace tfsem::kernels
