#include "semantics/registry.hpp"

#include "semantics/kernels.hpp"

#include <algorithm>

namespace tfsem {

std::string_view attr_type_name(AttrType t) {
  switch (t) {
    case AttrType::integer: return "integer";
    case AttrType::tensor: return "tensor";
    case AttrType::tensor_list: return "list of tensors";
    case AttrType::string: return "string";
    case AttrType::boolean: return "boolean";
  }
  return "?";
}

std::int64_t int_attr(const Attrs& attrs, std::string_view name, std::int64_t fallback) {
  auto it = attrs.find(name);
  return it == attrs.end() ? fallback : std::get<std::int64_t>(it->second);
}

namespace {

std::optional<std::int64_t> optional_int(const Attrs& attrs, std::string_view name) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return std::nullopt;
  return std::get<std::int64_t>(it->second);
}

// Built in place: a braced list would copy the tensor (and its reference count).
Tuple one(Tensor t) {
  Tuple r;
  r.push_back(std::move(t));
  return r;
}

FunctionDef binary(std::string_view name, kernels::Binary op, Laws laws, std::string_view doc) {
  return {.name = name,
          .inputs = 2,
          .laws = laws,
          .kernel = [name, op](std::span<const Tensor> a, const Attrs&) { return one(kernels::binary(op, name, a[0], a[1])); },
          .binary = [op](const Scalar& a, const Scalar& b) { return kernels::binary_scalar(op, a, b); },
          .doc = doc};
}

FunctionDef unary(std::string_view name, kernels::Unary op, std::string_view doc) {
  return {.name = name,
          .inputs = 1,
          .kernel = [name, op](std::span<const Tensor> a, const Attrs&) { return one(kernels::unary(op, name, a[0])); },
          .doc = doc};
}

FunctionDef reduction(std::string_view name, kernels::Reduce op, std::string_view doc) {
  return {.name = name,
          .inputs = 1,
          .attrs = {{"axis", AttrType::integer, false}},
          .kernel =
              [name, op](std::span<const Tensor> a, const Attrs& at) {
                return one(kernels::reduce(op, name, a[0], optional_int(at, "axis")));
              },
          .doc = doc};
}

std::vector<FunctionDef> builtin_functions() {
  using kernels::Binary;
  using kernels::Unary;
  constexpr Laws ac{.commutative = true, .associative = true};
  constexpr Laws c{.commutative = true};
  std::vector<FunctionDef> defs;
  defs.push_back({.name = "Identity", .inputs = 1, .forwards = true, .doc = "Identity(x) = x"});
  defs.push_back({.name = "LoopCond", .inputs = 1, .forwards = true,
                  .doc = "LoopCond(p) = p: marks the predicate of a while loop, as TensorFlow's LoopCond does"});
  defs.push_back({.name = "Copy", .inputs = 1, .outputs = 2, .forwards = true,
                  .doc = "Copy(x) = (x, x): explicit sharing of one result by two consumers"});
  defs.push_back({.name = "Snd", .inputs = 2, .ignored_args = 0b01, .forwards = true,
                  .doc = "Snd(x, y) = y; Write is Assign-Snd"});
  defs.push_back({.name = "NoOp",
                  .inputs = 0,
                  .outputs = 0,
                  .kernel = [](std::span<const Tensor>, const Attrs&) { return Tuple{}; },
                  .doc = "NoOp() = (): a node with control edges only, triggered by them (TensorFlow's NoOp and group)"});
  defs.push_back({.name = "Const",
                  .inputs = 0,
                  .attrs = {{"value", AttrType::tensor, true}},
                  .kernel = [](std::span<const Tensor>, const Attrs& at) { return one(std::get<Tensor>(at.at("value"))); },
                  .doc = "Const() = value; triggered by a control edge"});
  defs.push_back({.name = "Choice",
                  .inputs = 0,
                  .attrs = {{"values", AttrType::tensor_list, true}},
                  .nondeterministic = true,
                  .relation =
                      [](std::span<const Tensor>, const Attrs& at) {
                        Tuples alternatives;
                        for (const auto& v : std::get<std::vector<Tensor>>(at.at("values"))) alternatives.push_back({v});
                        return alternatives;
                      },
                  .doc = "a relation (footnote 2): returns any one of the declared values"});
  // S-ISINIT: whether a variable holds a value, from a Read of it (VarIsInitializedOp).
  defs.push_back({.name = "IsInitialized",
                  .inputs = 1,
                  .total = true,
                  .kernel =
                      [](std::span<const Tensor> a, const Attrs&) {
                        return one(Tensor::scalar(!(a[0].is_error() && a[0].as_error().kind == ErrorKind::uninitialized)));
                      },
                  .doc = "IsInitialized(v) = false when v is the error uninitialized, true otherwise (any other value, "
                         "an error or a term): the one function that inspects an error"});
  // S-DESTROY: Assign-Uninitialize leaves its variable uninitialized (DestroyResourceOp).
  defs.push_back({.name = "Uninitialize",
                  .inputs = 2,
                  .ignored_args = 0b11,
                  .total = true,
                  .kernel =
                      [](std::span<const Tensor>, const Attrs&) {
                        return one(Tensor::error(ErrorKind::uninitialized, "the variable was destroyed"));
                      },
                  .doc = "Uninitialize(w, v) = the error uninitialized, whatever w and v: Assign-Uninitialize "
                         "destroys a variable"});
  defs.push_back(binary("Add", Binary::add, ac, "elementwise x + y"));
  defs.push_back(binary("Sub", Binary::sub, {}, "elementwise x - y"));
  defs.push_back(binary("Mul", Binary::mul, ac, "elementwise x * y"));
  defs.push_back(binary("Div", Binary::div, {}, "elementwise x / y; integer division by zero is a domain error"));
  defs.push_back(binary("Less", Binary::less, {}, "elementwise x < y, as bool"));
  defs.push_back(binary("Equal", Binary::equal, c, "elementwise x == y, as bool"));
  defs.push_back(unary("Neg", Unary::neg, "elementwise -x"));
  defs.push_back(unary("Square", Unary::square, "elementwise x * x"));
  defs.push_back(unary("Sigmoid", Unary::sigmoid, "elementwise 1 / (1 + exp(-x)), floating point only"));
  defs.push_back(unary("Relu", Unary::relu, "elementwise max(x, 0)"));
  defs.push_back(reduction("Sum", kernels::Reduce::sum, "sum over all elements, or along attribute axis"));
  defs.push_back(reduction("Mean", kernels::Reduce::mean, "mean over all elements, or along attribute axis"));
  defs.push_back({.name = "MatMul",
                  .inputs = 2,
                  .kernel = [](std::span<const Tensor> a, const Attrs&) { return one(kernels::matmul(a[0], a[1])); },
                  .doc = "matrix product of rank-2 tensors"});
  defs.push_back({.name = "Concat",
                  .inputs = 2,
                  .laws = {.associative = true},
                  .attrs = {{"axis", AttrType::integer, false}},
                  .kernel =
                      [](std::span<const Tensor> a, const Attrs& at) {
                        return one(kernels::concat(a[0], a[1], int_attr(at, "axis", 0)));
                      },
                  .doc = "concatenation along attribute axis (default 0)"});
  defs.push_back({.name = "Split",
                  .inputs = 1,
                  .outputs = 2,
                  .attrs = {{"axis", AttrType::integer, false}},
                  .kernel =
                      [](std::span<const Tensor> a, const Attrs& at) {
                        auto [l, r] = kernels::split(a[0], int_attr(at, "axis", 0));
                        return Tuple{l, r};
                      },
                  .doc = "splits into two equal halves along attribute axis (default 0)"});
  defs.push_back({.name = "Project",
                  .inputs = 1,
                  .attrs = {{"begin", AttrType::integer, false}, {"end", AttrType::integer, false}},
                  .kernel =
                      [](std::span<const Tensor> a, const Attrs& at) {
                        return one(kernels::project(a[0], int_attr(at, "begin", 0), optional_int(at, "end")));
                      },
                  .doc = "the elements [begin, end) along axis 0 (default: all)"});
  return defs;
}

// Flattens nested applications of an associative head and sorts the arguments
// of a commutative one, so that equal terms modulo the laws are identical.
Tensor normalized_term(const FunctionDef& f, std::vector<Tensor> args) {
  if (f.laws.associative) {
    std::vector<Tensor> flat;
    for (auto& a : args) {
      if (a.is_term() && !a.as_term().atom && a.as_term().head == f.name) {
        const auto& inner = a.as_term().args;
        flat.insert(flat.end(), inner.begin(), inner.end());
      } else {
        flat.push_back(std::move(a));
      }
    }
    args = std::move(flat);
  }
  if (f.laws.commutative)
    std::sort(args.begin(), args.end(), [](const Tensor& a, const Tensor& b) { return compare(a, b) < 0; });
  return Tensor::apply(std::string(f.name), std::move(args));
}

// f(args), or f.j(args) for the j-th of several results.
Tuple terms(std::string_view name, std::size_t outputs, std::vector<Tensor> args) {
  if (outputs == 1) return {Tensor::apply(std::string(name), std::move(args))};
  Tuple out;
  for (std::size_t j = 0; j < outputs; ++j) out.push_back(Tensor::apply(std::string(name) + "." + std::to_string(j), args));
  return out;
}

}  // namespace

FunctionDef uninterpreted_function(std::string_view name, std::size_t inputs, std::size_t outputs, bool stateful) {
  return {.name = name,
          .inputs = inputs,
          .outputs = outputs,
          .uninterpreted = true,
          .stateful = stateful,
          .kernel = [name, outputs](std::span<const Tensor> a, const Attrs&) {
            return terms(name, outputs, std::vector<Tensor>(a.begin(), a.end()));
          },
          .doc = "an uninterpreted function: its results are terms"};
}

const Registry& Registry::builtin() {
  static const Registry registry(builtin_functions());
  return registry;
}

const FunctionDef* Registry::find(std::string_view name) const {
  auto it = std::find_if(defs_.begin(), defs_.end(), [&](const FunctionDef& d) { return d.name == name; });
  return it == defs_.end() ? nullptr : &*it;
}

namespace {

// S-ERR-PROP, a forwarding function and S-FN-3 on symbolic arguments: f's
// result when no kernel computes it.
std::optional<Tuple> without_kernel(const FunctionDef& f, std::span<const Tensor> args, const TermOptions& opts) {
  if (f.total) return std::nullopt;
  auto inspected = [&](std::size_t i) { return i >= 32 || (f.ignored_args >> i & 1U) == 0; };
  // S-ERR-PROP: errors propagate and are never caught.
  for (std::size_t i = 0; i < args.size(); ++i)
    if (inspected(i) && args[i].is_error()) return Tuple(f.outputs, args[i]);
  if (f.forwards) {
    for (std::size_t i = 0; i < args.size(); ++i)
      if (inspected(i)) return Tuple(f.outputs, args[i]);
  }
  const bool symbolic = std::any_of(args.begin(), args.end(), [](const Tensor& t) { return t.is_term(); });
  if (!symbolic) return std::nullopt;
  std::vector<Tensor> term_args(args.begin(), args.end());
  if (f.outputs == 1 && opts.normalize) return Tuple{normalized_term(f, std::move(term_args))};
  return terms(f.name, f.outputs, std::move(term_args));
}

}  // namespace

Tuples apply(const FunctionDef& f, std::span<const Tensor> args, const Attrs& attrs, const TermOptions& opts) {
  if (auto r = without_kernel(f, args, opts)) return {std::move(*r)};
  if (f.relation) return f.relation(args, attrs);
  Tuples r(1);
  r[0] = f.kernel(args, attrs);
  return r;
}

Tuple apply_function(const FunctionDef& f, std::span<const Tensor> args, const Attrs& attrs, const TermOptions& opts) {
  if (auto r = without_kernel(f, args, opts)) return std::move(*r);
  return f.kernel(args, attrs);
}

std::optional<Scalar> apply_binary(const FunctionDef& f, const Scalar& a, const Scalar& b) {
  if (!f.binary) return std::nullopt;
  return f.binary(a, b);
}

}  // namespace tfsem
