#include "semantics/kernels.hpp"

#include <Eigen/Core>

#include <cmath>
#include <limits>
#include <type_traits>

namespace tfsem::kernels {

namespace {

Tensor shape_error(std::string_view name, const Shape& a, const Shape& b) {
  return Tensor::error(ErrorKind::shape_mismatch,
                       std::string(name) + ": shapes " + shape_to_string(a) + " and " + shape_to_string(b));
}

Tensor dtype_error(std::string_view name, DType a, DType b) {
  return Tensor::error(ErrorKind::dtype_mismatch,
                       std::string(name) + ": dtypes " + std::string(dtype_name(a)) + " and " + std::string(dtype_name(b)));
}

// A result beyond the tensor limits (kMaxElements), which TensorFlow could not allocate either.
Tensor too_large(std::string_view name, const Shape& shape) {
  return Tensor::error(ErrorKind::resource_exhausted,
                       std::string(name) + ": a result of shape " + shape_to_string(shape) + " is over 2^28 elements");
}

Tensor unsupported(std::string_view name, DType d) {
  return Tensor::error(ErrorKind::dtype_mismatch, std::string(name) + ": not defined on " + std::string(dtype_name(d)));
}

// Two's-complement wrap-around for signed integers, without undefined
// behaviour; plain arithmetic for floating point.
template <class T, class F>
T wrapping(T a, T b, F f) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(f(static_cast<U>(a), static_cast<U>(b)));
  } else {
    return f(a, b);
  }
}

template <class T>
constexpr bool is_int = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// One element of a binary op; returns nullopt on a domain error.
template <class T>
std::optional<T> arith(Binary op, T a, T b) {
  if constexpr (is_int<T>) {
    switch (op) {
      case Binary::add: return wrapping(a, b, [](auto x, auto y) { return x + y; });
      case Binary::sub: return wrapping(a, b, [](auto x, auto y) { return x - y; });
      case Binary::mul: return wrapping(a, b, [](auto x, auto y) { return x * y; });
      case Binary::div:
        if (b == 0 || (a == std::numeric_limits<T>::min() && b == -1)) return std::nullopt;
        return static_cast<T>(a / b);
      default: break;
    }
  } else {
    switch (op) {
      case Binary::add: return a + b;
      case Binary::sub: return a - b;
      case Binary::mul: return a * b;
      case Binary::div: return a / b;  // IEEE: x/0 is an infinity or NaN, as in TensorFlow
      default: break;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Scalar> binary_scalar(Binary op, const Scalar& a, const Scalar& b) {
  if (a.dtype != b.dtype) return std::nullopt;
  return with_element_type(a.dtype, [&](auto t) -> std::optional<Scalar> {
    using T = decltype(t);
    const T x = a.get<T>(), y = b.get<T>();
    if (op == Binary::less || op == Binary::equal) return Scalar::of(op == Binary::less ? x < y : x == y);
    if constexpr (!std::is_same_v<T, bool>)
      if (auto r = arith(op, x, y)) return Scalar::of(*r);
    return std::nullopt;
  });
}

namespace {

template <class T>
Tensor binary_typed(Binary op, std::string_view name, const Tensor::Dense& a, const Tensor::Dense& b) {
  const auto& x = std::get<Buffer<T>>(a.data);
  const auto& y = std::get<Buffer<T>>(b.data);
  const bool a_scalar = a.shape.empty(), b_scalar = b.shape.empty();
  const Shape& shape = a_scalar ? b.shape : a.shape;
  const auto n = element_count(shape);
  auto at = [](const Buffer<T>& buf, bool scalar, Eigen::Index i) { return buf[scalar ? 0 : i]; };
  if (shape.empty())  // two scalars: made in place
    if (auto r = binary_scalar(op, Scalar::of(x[0]), Scalar::of(y[0]))) return r->tensor();
  if (op == Binary::less || op == Binary::equal) {
    Buffer<bool> out(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const T l = at(x, a_scalar, i), r = at(y, b_scalar, i);
      out[i] = op == Binary::less ? l < r : l == r;
    }
    return Tensor::dense(shape, Storage{std::move(out)});
  }
  if constexpr (std::is_same_v<T, bool>) {
    return unsupported(name, DType::boolean);
  } else {
    Buffer<T> out(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      auto r = arith(op, at(x, a_scalar, i), at(y, b_scalar, i));
      if (!r) return Tensor::error(ErrorKind::domain, std::string(name) + ": integer division by zero or overflow");
      out[i] = *r;
    }
    return Tensor::dense(shape, Storage{std::move(out)});
  }
}

template <class T>
T sigmoid(T v) {
  return T(1) / (T(1) + std::exp(-v));
}

template <class T>
Tensor unary_typed(Unary op, std::string_view name, const Tensor::Dense& a) {
  const auto& x = std::get<Buffer<T>>(a.data);
  if constexpr (std::is_same_v<T, bool>) {
    return unsupported(name, DType::boolean);
  } else {
    if (op == Unary::sigmoid && !std::is_floating_point_v<T>) return unsupported(name, a.dtype());
    Buffer<T> out(x.size());
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      const T v = x[i];
      switch (op) {
        case Unary::neg: out[i] = wrapping(T(0), v, [](auto p, auto q) { return p - q; }); break;
        case Unary::square: out[i] = wrapping(v, v, [](auto p, auto q) { return p * q; }); break;
        case Unary::relu: out[i] = v > T(0) ? v : T(0); break;
        case Unary::sigmoid:
          if constexpr (std::is_floating_point_v<T>) out[i] = sigmoid(v);
          break;
      }
    }
    return Tensor::dense(a.shape, Storage{std::move(out)});
  }
}

std::optional<Tensor> same_dtype(std::string_view name, const Tensor::Dense& a, const Tensor::Dense& b) {
  if (a.dtype() != b.dtype()) return dtype_error(name, a.dtype(), b.dtype());
  return std::nullopt;
}

// The wrapped-integer product of row-major matrices (Eigen's would overflow with undefined behaviour).
template <class T>
void int_matmul(const Buffer<T>& x, const Buffer<T>& y, Buffer<T>& out, std::int64_t m, std::int64_t k,
                std::int64_t n) {
  auto add = [](auto p, auto q) { return p + q; };
  auto mul = [](auto p, auto q) { return p * q; };
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      T acc = 0;
      for (std::int64_t l = 0; l < k; ++l) acc = wrapping(acc, wrapping(x[i * k + l], y[l * n + j], mul), add);
      out[i * n + j] = acc;
    }
}

}  // namespace

Tensor binary(Binary op, std::string_view name, const Tensor& ta, const Tensor& tb) {
  const auto &a = ta.as_dense(), &b = tb.as_dense();
  if (auto e = same_dtype(name, a, b)) return *e;
  if (a.shape != b.shape && !a.shape.empty() && !b.shape.empty()) return shape_error(name, a.shape, b.shape);
  return with_element_type(a.dtype(), [&](auto t) { return binary_typed<decltype(t)>(op, name, a, b); });
}

Tensor unary(Unary op, std::string_view name, const Tensor& ta) {
  const auto& a = ta.as_dense();
  return with_element_type(a.dtype(), [&](auto t) { return unary_typed<decltype(t)>(op, name, a); });
}

Tensor matmul(const Tensor& ta, const Tensor& tb) {
  const auto &a = ta.as_dense(), &b = tb.as_dense();
  if (auto e = same_dtype("MatMul", a, b)) return *e;
  if (a.shape.size() != 2 || b.shape.size() != 2 || a.shape[1] != b.shape[0])
    return shape_error("MatMul", a.shape, b.shape);
  const auto m = a.shape[0], k = a.shape[1], n = b.shape[1];
  if (!shape_within_limits({m, n})) return too_large("MatMul", {m, n});
  return with_element_type(a.dtype(), [&](auto t) -> Tensor {
    using T = decltype(t);
    if constexpr (std::is_same_v<T, bool>) {
      return unsupported("MatMul", DType::boolean);
    } else {
      const auto& x = std::get<Buffer<T>>(a.data);
      const auto& y = std::get<Buffer<T>>(b.data);
      Buffer<T> out(m * n);
      if constexpr (std::is_floating_point_v<T>) {
        using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
        Eigen::Map<Mat>(out.data(), m, n).noalias() =
            Eigen::Map<const Mat>(x.data(), m, k) * Eigen::Map<const Mat>(y.data(), k, n);
      } else {
        int_matmul(x, y, out, m, k, n);
      }
      return Tensor::dense({m, n}, Storage{std::move(out)});
    }
  });
}

namespace {
// The sum of the n terms at(0), ..., at(n - 1). Integers wrap, in any order.
// Floats are added left to right up to kSumLeaf terms and in halves above, as
// Eigen's and TensorFlow's reductions do: the rounding error grows with log n
// rather than with n (a left-to-right f32 sum of 4 million terms near 0.6 is
// off by 1%), and sums of up to kSumLeaf terms are the plain left-to-right ones.
constexpr std::int64_t kSumLeaf = 1024;

template <class T, class At>
T sum_terms(std::int64_t first, std::int64_t n, const At& at) {
  if constexpr (std::is_floating_point_v<T>) {
    if (n > kSumLeaf) {
      const auto half = n / 2;
      return sum_terms<T>(first, half, at) + sum_terms<T>(first + half, n - half, at);
    }
  }
  T acc = 0;
  for (std::int64_t l = first; l < first + n; ++l) acc = wrapping(acc, at(l), [](auto p, auto q) { return p + q; });
  return acc;
}
}  // namespace

Tensor reduce(Reduce op, std::string_view name, const Tensor& ta, std::optional<std::int64_t> axis) {
  const auto& a = ta.as_dense();
  const auto rank = static_cast<std::int64_t>(a.shape.size());
  if (axis && (*axis < 0 || *axis >= rank))
    return Tensor::error(ErrorKind::shape_mismatch,
                         std::string(name) + ": axis " + std::to_string(*axis) + " out of range for shape " +
                             shape_to_string(a.shape));
  // View the tensor as outer x len x inner, reducing over len.
  std::int64_t outer = 1, len = element_count(a.shape), inner = 1;
  Shape out_shape;
  if (axis) {
    len = a.shape[*axis];
    for (std::int64_t d = 0; d < rank; ++d) {
      if (d < *axis) outer *= a.shape[d];
      if (d > *axis) inner *= a.shape[d];
      if (d != *axis) out_shape.push_back(a.shape[d]);
    }
  }
  if (op == Reduce::mean && len == 0)
    return Tensor::error(ErrorKind::domain, std::string(name) + ": mean of no elements");
  return with_element_type(a.dtype(), [&](auto t) -> Tensor {
    using T = decltype(t);
    if constexpr (std::is_same_v<T, bool>) {
      return unsupported(name, DType::boolean);
    } else {
      const auto& x = std::get<Buffer<T>>(a.data);
      Buffer<T> out(outer * inner);
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i) {
          T acc = sum_terms<T>(0, len, [&](std::int64_t l) { return x[(o * len + l) * inner + i]; });
          if (op == Reduce::mean) acc = static_cast<T>(acc / static_cast<T>(len));
          out[o * inner + i] = acc;
        }
      return Tensor::dense(out_shape, Storage{std::move(out)});
    }
  });
}

namespace {
// Copies rows [begin, end) of axis `axis` from a into `out` starting at element `at`.
template <class T>
void copy_block(const Buffer<T>& src, const Shape& shape, std::int64_t axis, std::int64_t begin, std::int64_t end,
                Buffer<T>& out, std::int64_t out_len, std::int64_t out_begin) {
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t d = 0; d < static_cast<std::int64_t>(shape.size()); ++d) {
    if (d < axis) outer *= shape[d];
    if (d > axis) inner *= shape[d];
  }
  const auto len = shape[axis];
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t l = begin; l < end; ++l)
      for (std::int64_t i = 0; i < inner; ++i)
        out[(o * out_len + out_begin + (l - begin)) * inner + i] = src[(o * len + l) * inner + i];
}

Tensor slice(const Tensor::Dense& a, std::int64_t axis, std::int64_t begin, std::int64_t end) {
  Shape shape = a.shape;
  shape[axis] = end - begin;
  return std::visit(
      [&](const auto& src) {
        std::decay_t<decltype(src)> out(element_count(shape));
        copy_block(src, a.shape, axis, begin, end, out, shape[axis], 0);
        return Tensor::dense(shape, Storage{std::move(out)});
      },
      a.data);
}

std::optional<Tensor> check_axis(std::string_view name, const Shape& s, std::int64_t axis) {
  if (axis < 0 || axis >= static_cast<std::int64_t>(s.size()))
    return Tensor::error(ErrorKind::shape_mismatch, std::string(name) + ": axis " + std::to_string(axis) +
                                                        " out of range for shape " + shape_to_string(s));
  return std::nullopt;
}
}  // namespace

Tensor concat(const Tensor& ta, const Tensor& tb, std::int64_t axis) {
  const auto &a = ta.as_dense(), &b = tb.as_dense();
  if (auto e = same_dtype("Concat", a, b)) return *e;
  if (auto e = check_axis("Concat", a.shape, axis)) return *e;
  bool compatible = a.shape.size() == b.shape.size();
  for (std::size_t d = 0; compatible && d < a.shape.size(); ++d)
    compatible = static_cast<std::int64_t>(d) == axis || a.shape[d] == b.shape[d];
  if (!compatible) return shape_error("Concat", a.shape, b.shape);
  Shape shape = a.shape;
  shape[axis] = a.shape[axis] + b.shape[axis];
  if (!shape_within_limits(shape)) return too_large("Concat", shape);
  return std::visit(
      [&](const auto& x) {
        using B = std::decay_t<decltype(x)>;
        B out(element_count(shape));
        copy_block(x, a.shape, axis, 0, a.shape[axis], out, shape[axis], 0);
        copy_block(std::get<B>(b.data), b.shape, axis, 0, b.shape[axis], out, shape[axis], a.shape[axis]);
        return Tensor::dense(shape, Storage{std::move(out)});
      },
      a.data);
}

std::pair<Tensor, Tensor> split(const Tensor& ta, std::int64_t axis) {
  const auto& a = ta.as_dense();
  if (auto e = check_axis("Split", a.shape, axis)) return {*e, *e};
  const auto len = a.shape[axis];
  if (len % 2 != 0) {
    auto e = Tensor::error(ErrorKind::shape_mismatch, "Split: dimension " + std::to_string(axis) + " of shape " +
                                                          shape_to_string(a.shape) + " is odd");
    return {e, e};
  }
  return {slice(a, axis, 0, len / 2), slice(a, axis, len / 2, len)};
}

Tensor project(const Tensor& ta, std::int64_t begin, std::optional<std::int64_t> end) {
  const auto& a = ta.as_dense();
  if (auto e = check_axis("Project", a.shape, 0)) return *e;
  const auto stop = end.value_or(a.shape[0]);
  if (begin < 0 || begin > stop || stop > a.shape[0])
    return Tensor::error(ErrorKind::shape_mismatch, "Project: range [" + std::to_string(begin) + "," +
                                                        std::to_string(stop) + ") out of range for shape " +
                                                        shape_to_string(a.shape));
  return slice(a, 0, begin, stop);
}

}  // namespace tfsem::kernels
