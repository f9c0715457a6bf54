#include "semantics/tensor.hpp"

#include "semantics/tensor_rep.hpp"
#include "semantics/term_text.hpp"
#include "support/hash.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace tfsem {

namespace {
constexpr std::string_view kDTypeNames[] = {"f32", "f64", "i32", "i64", "bool"};
constexpr std::string_view kErrorNames[] = {"uninitialized", "shape mismatch", "dtype mismatch", "domain", "resource exhausted"};
}  // namespace

std::string_view dtype_name(DType d) { return kDTypeNames[static_cast<int>(d)]; }

std::optional<DType> dtype_from_name(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kDTypeNames); ++i)
    if (kDTypeNames[i] == name) return static_cast<DType>(i);
  return std::nullopt;
}

bool is_floating(DType d) { return d == DType::f32 || d == DType::f64; }

std::string_view error_kind_name(ErrorKind k) { return kErrorNames[static_cast<int>(k)]; }

std::int64_t element_count(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

bool shape_within_limits(const Shape& s) {
  if (s.size() > kMaxRank) return false;
  std::int64_t n = 1;
  for (auto d : s) {
    if (d < 0 || d > kMaxElements) return false;
    if (d > 0) n *= d;  // both factors are at most 2^28: no overflow
    if (n > kMaxElements) return false;
  }
  return true;
}

std::string shape_to_string(const Shape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

namespace {

std::size_t hash_of(const Tensor::Dense& d) {
  std::size_t h = hash_combine(1, static_cast<std::size_t>(d.dtype()));
  for (auto dim : d.shape) h = hash_combine(h, static_cast<std::size_t>(dim));
  return std::visit(
      [&](const auto& buf) {
        return hash_combine(h, fnv1a_bytes(buf.data(), static_cast<std::size_t>(buf.size()) * sizeof(buf[0])));
      },
      d.data);
}

std::size_t hash_of(const Tensor::Error& e) {
  return hash_combine(hash_combine(4, static_cast<std::size_t>(e.kind)), fnv1a(e.message));
}

template <class T>
std::string element_text(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_floating_point_v<T>) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*g", std::is_same_v<T, float> ? 9 : 17, static_cast<double>(v));
    std::string s = buf;
    if (std::isfinite(v) && s.find_first_of(".eE") == std::string::npos) s += ".0";
    return s;
  } else {
    return std::to_string(v);
  }
}

// Nested-bracket text of dense data, row-major.
template <class T>
void nested_text(const Buffer<T>& buf, const Shape& shape, std::size_t dim, std::int64_t& pos, std::string& out) {
  if (dim == shape.size()) {
    out += element_text(buf[pos++]);
    return;
  }
  out += '[';
  for (std::int64_t i = 0; i < shape[dim]; ++i) {
    if (i) out += ',';
    nested_text(buf, shape, dim + 1, pos, out);
  }
  out += ']';
}

}  // namespace

Tensor Tensor::dense(Shape shape, Storage data) {
  if (!shape_within_limits(shape)) throw std::invalid_argument("shape " + shape_to_string(shape) + " is beyond the tensor limits");
  const auto n = std::visit([](const auto& b) { return static_cast<std::int64_t>(b.size()); }, data);
  if (n != element_count(shape))
    throw std::invalid_argument("shape " + shape_to_string(shape) + " needs " + std::to_string(element_count(shape)) +
                                " elements, got " + std::to_string(n));
  std::visit(
      [](auto& b) {
        using T = std::decay_t<decltype(b[0])>;
        if constexpr (std::is_floating_point_v<T>)  // V-NAN: a tensor has one NaN
          for (std::ptrdiff_t i = 0; i < b.size(); ++i)
            if (std::isnan(b[i])) b[i] = std::numeric_limits<T>::quiet_NaN();
      },
      data);
  return Tensor(std::make_shared<const Rep>(Dense{std::move(shape), std::move(data)}));
}

template <class T>
Tensor Tensor::scalar(T v) {
  if constexpr (std::is_floating_point_v<T>)  // V-NAN: a tensor has one NaN
    if (std::isnan(v)) v = std::numeric_limits<T>::quiet_NaN();
  auto rep = std::make_shared<Rep>(std::in_place_type<Dense>);
  std::get<Dense>(rep->v).data.template emplace<Buffer<T>>(1)[0] = v;
  return Tensor(std::move(rep));
}
template Tensor Tensor::scalar(float);
template Tensor Tensor::scalar(double);
template Tensor Tensor::scalar(std::int32_t);
template Tensor Tensor::scalar(std::int64_t);
template Tensor Tensor::scalar(bool);

Tensor Tensor::error(ErrorKind kind, std::string message) {
  return Tensor(std::make_shared<const Rep>(Error{kind, std::move(message)}));
}

Tensor::Kind Tensor::kind() const { return static_cast<Kind>(rep_->v.index()); }
const Tensor::Dense& Tensor::as_dense() const { return std::get<Dense>(rep_->v); }
const Tensor::Term& Tensor::as_term() const { return std::get<Term>(rep_->v); }
const Tensor::Error& Tensor::as_error() const { return std::get<Error>(rep_->v); }
std::size_t Tensor::hash() const {
  const auto& r = *rep_;
  if (r.hashed.load(std::memory_order_acquire)) return r.hash.load(std::memory_order_relaxed);
  const auto h = std::visit(
      [&](const auto& v) {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, Term>) return r.hash.load(std::memory_order_relaxed);  // set when made
        else return hash_of(v);
      },
      r.v);
  r.hash.store(h, std::memory_order_relaxed);
  r.hashed.store(true, std::memory_order_release);
  return h;
}

namespace {
template <class T>
std::strong_ordering compare_buffers(const Buffer<T>& a, const Buffer<T>& b) {
  if (auto c = a.size() <=> b.size(); c != 0) return c;
  for (std::ptrdiff_t i = 0; i < a.size(); ++i) {
    // Compare bit patterns so that the order is total, NaN included.
    if constexpr (std::is_floating_point_v<T>) {
      if (auto c = std::memcmp(&a[i], &b[i], sizeof(T)); c != 0) return c <=> 0;
    } else if (auto c = a[i] <=> b[i]; c != 0) {
      return c;
    }
  }
  return std::strong_ordering::equal;
}
}  // namespace

namespace {
// The order of dense tensors (by dtype, shape, then elements) or of errors.
std::strong_ordering compare_values(const Tensor& a, const Tensor& b) {
  if (a.is_dense()) {
    const auto &x = a.as_dense(), &y = b.as_dense();
    if (auto c = x.dtype() <=> y.dtype(); c != 0) return c;
    if (auto c = std::lexicographical_compare_three_way(x.shape.begin(), x.shape.end(), y.shape.begin(), y.shape.end());
        c != 0)
      return c;
    return std::visit([&](const auto& bx) { return compare_buffers(bx, std::get<std::decay_t<decltype(bx)>>(y.data)); },
                      x.data);
  }
  const auto &x = a.as_error(), &y = b.as_error();
  if (auto c = x.kind <=> y.kind; c != 0) return c;
  return x.message <=> y.message;
}
}  // namespace

// Terms compare by atom-or-application, head, then arguments in turn. Two
// distinct terms differ (they are interned), so the first pair of arguments
// that are distinct terms decides: the walk goes down that pair alone, in a
// loop, and costs the depth of the terms, not the size of their trees.
std::strong_ordering compare(const Tensor& a, const Tensor& b) {
  const Tensor *x = &a, *y = &b;
  for (;;) {
    if (x->rep_ == y->rep_) return std::strong_ordering::equal;
    if (auto c = x->kind() <=> y->kind(); c != 0) return c;
    if (!x->is_term()) return compare_values(*x, *y);
    const auto &s = x->as_term(), &t = y->as_term();
    if (auto c = s.atom <=> t.atom; c != 0) return c;
    if (auto c = s.head <=> t.head; c != 0) return c;
    const Tensor *next_x = nullptr, *next_y = nullptr;
    for (std::size_t i = 0; i < std::min(s.args.size(), t.args.size()) && next_x == nullptr; ++i) {
      const auto &l = s.args[i], &r = t.args[i];
      if (l.rep_ == r.rep_) continue;
      if (l.is_term() && r.is_term()) {
        next_x = &l;
        next_y = &r;
      } else if (auto c = compare(l, r); c != 0) {  // not both terms: no deeper than this
        return c;
      }
    }
    if (next_x == nullptr) return s.args.size() <=> t.args.size();
    x = next_x;
    y = next_y;
  }
}

bool operator==(const Tensor& a, const Tensor& b) {
  if (a.rep_ == b.rep_) return true;
  if (a.is_term() || b.is_term()) return false;  // interned: equal terms are identical
  return a.hash() == b.hash() && compare(a, b) == 0;
}

std::string Tensor::to_string(std::size_t max_elements) const {
  switch (kind()) {
    case Kind::term: {
      if (auto* names = TermNames::current()) return names->in_scope(*this, max_elements);
      TermNames names;
      auto out = names.text(*this, max_elements);
      const auto& defs = names.definitions();
      if (defs.empty()) return out;
      out += " where {";
      for (std::size_t i = 0; i < defs.size(); ++i) out += (i ? "; " : "") + defs[i].name + " = " + defs[i].text;
      return out + "}";
    }
    case Kind::error: {
      const auto& e = as_error();
      return "error(" + std::string(error_kind_name(e.kind)) + ": " + e.message + ")";
    }
    case Kind::dense: {
      const auto& d = as_dense();
      std::string out = std::string(dtype_name(d.dtype())) + ":";
      if (static_cast<std::size_t>(element_count(d.shape)) > max_elements) {
        char buf[24];
        std::snprintf(buf, sizeof buf, "%016zx", hash());
        return out + shape_to_string(d.shape) + "#" + buf;
      }
      std::visit(
          [&](const auto& b) {
            std::int64_t pos = 0;
            nested_text(b, d.shape, 0, pos, out);
          },
          d.data);
      return out;
    }
  }
  return {};
}

}  // namespace tfsem
