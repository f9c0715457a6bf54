// The one registry of TF functions f: Tensors^k -> Tensors^l (section 3.1.1).
// Adding a function means adding one entry to the table in registry.cpp; the
// checklist is in docs/adding-an-op.md.
#pragma once

#include "semantics/scalar.hpp"
#include "semantics/tensor.hpp"

#include <boost/container/flat_map.hpp>
#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tfsem {

// Node attributes: static parameters of an operation (Const's value, an axis,
// an Enter's frame, ...). The alternatives follow AttrType's order. A node's
// attributes lie in one block, by name (a million Const nodes hold a million).
using Attr = std::variant<std::int64_t, Tensor, std::vector<Tensor>, std::string, bool>;
using Attrs = boost::container::flat_map<std::string, Attr, std::less<>>;
enum class AttrType : std::uint8_t { integer, tensor, tensor_list, string, boolean };
std::string_view attr_type_name(AttrType t);

struct AttrSpec {
  std::string_view name;
  AttrType type;
  bool required;
};

// Algebraic laws a function declares; terms may be normalized modulo them.
struct Laws {
  bool commutative = false;
  bool associative = false;
};

// One result tuple (v_1 ... v_l) of f.
using Tuple = boost::container::small_vector<Tensor, 2>;
// Every tuple f may return: exactly one for a function, one or more for a
// relation (footnote 2, nondeterminism).
using Tuples = std::vector<Tuple>;

struct FunctionDef {
  std::string_view name;
  std::size_t inputs = 0;   // k
  std::size_t outputs = 1;  // l
  Laws laws{};
  std::vector<AttrSpec> attrs{};
  bool nondeterministic = false;
  // Arguments f never inspects (bit i for argument i < 32): Snd(x, y) = y ignores x,
  // so an error in x does not propagate and Write initializes (footnote 6).
  std::uint32_t ignored_args = 0;
  // f returns its one inspected argument on every output (Identity, Copy, Snd),
  // for concrete and symbolic tensors alike; no kernel then.
  bool forwards = false;
  // f's kernel takes every argument as it is, an error or a term included:
  // neither S-ERR-PROP nor S-FN-3's terms apply (IsInitialized inspects the
  // error "uninitialized", S-ISINIT; Uninitialize ignores its arguments, S-DESTROY).
  bool total = false;
  // An uninterpreted function a graph declares (an op tfsem does not model,
  // such as an imported TensorFlow op): deterministic, its results are the
  // terms f(v_1..v_k) even on concrete arguments. `stateful` marks one whose
  // state (a queue, a random generator) the term does not model.
  bool uninterpreted = false;
  bool stateful = false;
  // The kernel of a function on dense arguments (k = 0: on attributes only):
  // its one result tuple.
  std::function<Tuple(std::span<const Tensor>, const Attrs&)> kernel{};
  // A binary function's kernel on two dense scalars, for an executor that
  // carries them unboxed (apply_binary): nullopt where the kernel's result is
  // not a scalar of theirs (an error element). Absent: the kernel only.
  std::function<std::optional<Scalar>(const Scalar&, const Scalar&)> binary{};
  // A relation's kernel instead (nondeterministic): every tuple it may return.
  std::function<Tuples(std::span<const Tensor>, const Attrs&)> relation{};
  std::string_view doc{};
};

// The uninterpreted function `name` in Tensors^inputs -> Tensors^outputs;
// `name` must outlive the definition.
FunctionDef uninterpreted_function(std::string_view name, std::size_t inputs, std::size_t outputs, bool stateful);

class Registry {
 public:
  static const Registry& builtin();
  [[nodiscard]] const FunctionDef* find(std::string_view name) const;
  [[nodiscard]] const std::vector<FunctionDef>& all() const { return defs_; }

 private:
  explicit Registry(std::vector<FunctionDef> defs) : defs_(std::move(defs)) {}
  std::vector<FunctionDef> defs_;
};

struct TermOptions {
  bool normalize = false;  // normalize terms modulo the declared laws
};

// Applies f to its arguments (rule S-FN-3 and S-ERR-PROP):
// - an error argument that f inspects propagates to every output;
// - a symbolic argument makes every output a term `f(args)` (`f.j(args)` for the
//   j-th of several outputs), unless f forwards its argument;
// - otherwise the kernel computes on dense tensors.
Tuples apply(const FunctionDef& f, std::span<const Tensor> args, const Attrs& attrs, const TermOptions& opts);
// The same for a function (not a relation): its one result tuple, without a
// vector of alternatives around it.
Tuple apply_function(const FunctionDef& f, std::span<const Tensor> args, const Attrs& attrs, const TermOptions& opts);

// A binary function f on two dense scalars, as apply_function would compute
// it, without a Tensor; nullopt where apply_function must (no scalar kernel,
// or its result is an error element).
std::optional<Scalar> apply_binary(const FunctionDef& f, const Scalar& a, const Scalar& b);

// Reads an attribute, or `fallback` when it is absent.
std::int64_t int_attr(const Attrs& attrs, std::string_view name, std::int64_t fallback);

}  // namespace tfsem
