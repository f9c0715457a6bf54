// A dense scalar's one element, unboxed: its dtype beside its value. What an
// executor carries in a token instead of a Tensor, which is a shared,
// reference-counted representation; a Tensor is made only where one is needed.
#pragma once

#include "semantics/tensor.hpp"

#include <cstdint>
#include <optional>
#include <type_traits>

namespace tfsem {

struct Scalar {
  DType dtype = DType::i32;
  union {
    float f32;
    double f64;
    std::int32_t i32;
    std::int64_t i64 = 0;
    bool boolean;
  };

  // The scalar of one of the element types (float, double, int32_t, int64_t, bool).
  template <class T>
  static Scalar of(T v) {
    Scalar s;
    if constexpr (std::is_same_v<T, float>) s.dtype = DType::f32, s.f32 = v;
    else if constexpr (std::is_same_v<T, double>) s.dtype = DType::f64, s.f64 = v;
    else if constexpr (std::is_same_v<T, std::int32_t>) s.dtype = DType::i32, s.i32 = v;
    else if constexpr (std::is_same_v<T, std::int64_t>) s.dtype = DType::i64, s.i64 = v;
    else s.dtype = DType::boolean, s.boolean = v;
    return s;
  }
  // Its value as T, which must be its dtype's element type.
  template <class T>
  [[nodiscard]] T get() const {
    if constexpr (std::is_same_v<T, float>) return f32;
    else if constexpr (std::is_same_v<T, double>) return f64;
    else if constexpr (std::is_same_v<T, std::int32_t>) return i32;
    else if constexpr (std::is_same_v<T, std::int64_t>) return i64;
    else return boolean;
  }
  [[nodiscard]] Tensor tensor() const {
    return with_element_type(dtype, [&](auto t) { return Tensor::scalar(get<decltype(t)>()); });
  }
  // t's element when t is a dense scalar.
  static std::optional<Scalar> of_tensor(const Tensor& t) {
    if (!t.is_dense() || !t.as_dense().shape.empty()) return std::nullopt;
    const auto& d = t.as_dense();
    return with_element_type(d.dtype(), [&](auto e) { return of(std::get<Buffer<decltype(e)>>(d.data)[0]); });
  }
};

}  // namespace tfsem
