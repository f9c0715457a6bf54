// The paper's set Tensors (section 3.1.1): concrete tensors, symbolic terms,
// and the error elements of footnote 2. All three are immutable values.
#pragma once

#include "semantics/buffer.hpp"

#include <boost/container/small_vector.hpp>

#include <compare>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tfsem {

// Element types. The order matches the alternatives of Storage.
enum class DType : std::uint8_t { f32, f64, i32, i64, boolean };
std::string_view dtype_name(DType d);
std::optional<DType> dtype_from_name(std::string_view name);
bool is_floating(DType d);

// Calls f with a value of d's element type: float, double, int32_t, int64_t or bool.
template <class F>
decltype(auto) with_element_type(DType d, F&& f) {
  switch (d) {
    case DType::f32: return f(float{});
    case DType::f64: return f(double{});
    case DType::i32: return f(std::int32_t{});
    case DType::i64: return f(std::int64_t{});
    case DType::boolean: break;
  }
  return f(bool{});
}

using Shape = boost::container::small_vector<std::int64_t, 4>;
std::int64_t element_count(const Shape& s);

// The largest tensor tfsem makes: at most TensorFlow's 254 dimensions
// (TensorShape's kMaxDims), whose nonzero ones multiply to at most 2^28 (1 GiB
// of f32). Counting zero dimensions as 1 keeps every product of dimensions
// (a kernel's loop bounds, a result's size) within range even for an empty
// tensor; a kernel whose result would be larger, as an outer product of two
// vectors can be, gives the error element "resource exhausted" instead.
inline constexpr std::size_t kMaxRank = 254;
inline constexpr std::int64_t kMaxElements = std::int64_t{1} << 28;
// Whether s is within those limits (no dimension negative), computed without overflow.
bool shape_within_limits(const Shape& s);
std::string shape_to_string(const Shape& s);

// Row-major element storage of a dense tensor; the alternative's index is its DType.
using Storage = std::variant<Buffer<float>, Buffer<double>, Buffer<std::int32_t>, Buffer<std::int64_t>, Buffer<bool>>;

// Footnote 2: "distinct elements that represent various errors". resource
// exhausted: a result over the size limit (TensorFlow's ResourceExhaustedError).
enum class ErrorKind : std::uint8_t { uninitialized, shape_mismatch, dtype_mismatch, domain, resource_exhausted };
std::string_view error_kind_name(ErrorKind k);

// V-TENSORS: an element of Tensors: a dense tensor, a symbolic term, or an error.
class Tensor {
 public:
  struct Dense {
    Shape shape;
    Storage data;
    [[nodiscard]] DType dtype() const { return static_cast<DType>(data.index()); }
  };
  // A symbolic tensor: a named atom (A, B, ...) or a function applied to
  // tensors. Terms are hash-consed: each distinct term exists once while it is
  // referenced (see Tensor::atom), so a term that shares subterms is a DAG and
  // a state holds references to it, never copies of its tree.
  struct Term {
    std::string head;
    std::vector<Tensor> args;
    bool atom = false;
  };
  struct Error {
    ErrorKind kind;
    std::string message;
  };
  enum class Kind : std::uint8_t { dense, term, error };

  // Dense tensors; data must hold element_count(shape) elements, and the shape
  // be within the limits (shape_within_limits).
  static Tensor dense(Shape shape, Storage data);
  // A scalar of one of the element types (float, double, int32_t, int64_t,
  // bool), made in place: one allocation, no checks, no hash.
  template <class T>
  static Tensor scalar(T v);
  // The term, found in a process-wide table of the terms alive (thread-safe):
  // equal terms are one object, whose hash is computed once, when it is made,
  // from its arguments' hashes. A term is freed with its last reference, and
  // leaves the table then.
  static Tensor atom(std::string name);
  static Tensor apply(std::string head, std::vector<Tensor> args);
  // How many distinct terms are alive.
  static std::size_t live_terms();
  static Tensor error(ErrorKind kind, std::string message);

  [[nodiscard]] Kind kind() const;
  [[nodiscard]] bool is_dense() const { return kind() == Kind::dense; }
  [[nodiscard]] bool is_term() const { return kind() == Kind::term; }
  [[nodiscard]] bool is_error() const { return kind() == Kind::error; }
  [[nodiscard]] const Dense& as_dense() const;
  [[nodiscard]] const Term& as_term() const;
  [[nodiscard]] const Error& as_error() const;

  // A dense tensor's hash is computed when first asked for (by the explorer's
  // state table, say), not when the tensor is made: an executor that only
  // passes tensors on never pays for it. A term's was computed when it was made.
  [[nodiscard]] std::size_t hash() const;
  // Tensors are immutable and share their representation when copied: equal
  // identities imply equal tensors (a cheap first test for interning), and
  // two terms are equal exactly when their identities are.
  [[nodiscard]] const void* identity() const { return rep_.get(); }
  friend bool operator==(const Tensor& a, const Tensor& b);
  // A total structural order (used to normalize terms modulo commutativity),
  // the same in every process: terms by kind, head, then arguments in turn.
  // Comparing two terms walks one path of their DAGs, never their trees.
  friend std::strong_ordering compare(const Tensor& a, const Tensor& b);

  // Human-readable text: `A`, `Add(B,D)`, `i32:[1,2]`, `error(domain: ...)`.
  // Dense tensors with more than `max_elements` elements are summarized by
  // shape and content hash. A term that refers to a subterm more than once
  // names it (TermNames): `F(%1,%1) where {%1 = F(X,X)}`, so that the text
  // grows with the term's DAG, not its tree; while a TermNames::Scope is open
  // on this thread, `F(%1,%1)`, the definition left in that scope's table.
  [[nodiscard]] std::string to_string(std::size_t max_elements = 64) const;

 private:
  struct Rep;
  class TermTable;
  explicit Tensor(std::shared_ptr<const Rep> rep) : rep_(std::move(rep)) {}
  std::shared_ptr<const Rep> rep_;
};

}  // namespace tfsem

template <>
struct std::hash<tfsem::Tensor> {
  std::size_t operator()(const tfsem::Tensor& t) const noexcept { return t.hash(); }
};
