#include <doctest/doctest.h>

#include "formats/json/graph_json.hpp"
#include "semantics/registry.hpp"

using namespace tfsem;

namespace {
Tensor t(const char* text) { return format::parse_tensor(nlohmann::json::parse(text), "/t"); }

std::string call(const char* fn, std::vector<Tensor> args, Attrs attrs = {}, bool normalize = false) {
  const auto* f = Registry::builtin().find(fn);
  REQUIRE(f != nullptr);
  auto tuples = apply(*f, args, attrs, {normalize});
  std::string out;
  for (const auto& tuple : tuples) {
    if (!out.empty()) out += " | ";
    for (std::size_t j = 0; j < tuple.size(); ++j) out += (j ? " ; " : "") + tuple[j].to_string();
  }
  return out;
}
}  // namespace

TEST_CASE("elementwise arithmetic with scalar broadcast") {
  CHECK(call("Add", {t("[1,2]"), t("[3,4]")}) == "i32:[4,6]");
  CHECK(call("Sub", {t("[1,2]"), t("1")}) == "i32:[0,1]");
  CHECK(call("Mul", {t("2.0"), t("[1.5,2.0]")}) == "f32:[3.0,4.0]");
  CHECK(call("Div", {t("[7,-7]"), t("2")}) == "i32:[3,-3]");
  CHECK(call("Neg", {t("[1,-2]")}) == "i32:[-1,2]");
  CHECK(call("Square", {t("[3]")}) == "i32:[9]");
  CHECK(call("Relu", {t("[-1.0,2.0]")}) == "f32:[0.0,2.0]");
  CHECK(call("Sigmoid", {t(R"({"dtype":"f64","value":0})")}) == "f64:0.5");
  CHECK(call("Less", {t("[1,5]"), t("[2,2]")}) == "bool:[true,false]");
  CHECK(call("Equal", {t("[1,5]"), t("5")}) == "bool:[false,true]");
}

TEST_CASE("a binary function on two unboxed scalars agrees with its kernel, or leaves the error to it") {
  const std::vector<Tensor> scalars = {t("7"), t("0"), t("-2147483648"), t("-1"), t("2.5"), t("0.0"), t("true"), t("false")};
  for (const char* fn : {"Add", "Sub", "Mul", "Div", "Less", "Equal"}) {
    const auto* f = Registry::builtin().find(fn);
    REQUIRE(f != nullptr);
    for (const auto& a : scalars)
      for (const auto& b : scalars) {
        const std::vector<Tensor> args = {a, b};
        const auto expected = apply_function(*f, args, {}, {})[0];
        const auto r = apply_binary(*f, *Scalar::of_tensor(a), *Scalar::of_tensor(b));
        CHECK((r ? r->tensor() == expected : expected.is_error()));
      }
  }
}

TEST_CASE("integer arithmetic wraps around instead of overflowing") {
  CHECK(call("Add", {t("2147483647"), t("1")}) == "i32:-2147483648");
  CHECK(call("Neg", {t("-2147483648")}) == "i32:-2147483648");
}

TEST_CASE("errors are values: shape, dtype and domain") {
  CHECK(call("Add", {t("[1,2]"), t("[1,2,3]")}) == "error(shape mismatch: Add: shapes [2] and [3])");
  CHECK(call("Add", {t("[1,2]"), t("[1.0,2.0]")}) == "error(dtype mismatch: Add: dtypes i32 and f32)");
  CHECK(call("Div", {t("1"), t("0")}) == "error(domain: Div: integer division by zero or overflow)");
  CHECK(call("Sigmoid", {t("1")}) == "error(dtype mismatch: Sigmoid: not defined on i32)");
  CHECK(call("MatMul", {t("[[1,2]]"), t("[[1,2]]")}) == "error(shape mismatch: MatMul: shapes [1,2] and [1,2])");
  CHECK(call("Add", {t("true"), t("true")}) == "error(dtype mismatch: Add: not defined on bool)");
}

TEST_CASE("errors propagate and are never caught; Snd ignores its first argument") {
  const auto err = Tensor::error(ErrorKind::uninitialized, "x");
  CHECK(call("Add", {err, t("1")}) == "error(uninitialized: x)");
  CHECK(call("Split", {err}) == "error(uninitialized: x) ; error(uninitialized: x)");
  CHECK(call("Snd", {err, t("1")}) == "i32:1");
  CHECK(call("Snd", {t("1"), err}) == "error(uninitialized: x)");
}

// S-ISINIT, S-DESTROY: the two total functions see every argument as it is.
TEST_CASE("IsInitialized inspects the error uninitialized; Uninitialize gives it whatever its arguments") {
  const auto uninit = Tensor::error(ErrorKind::uninitialized, "variable 'x' is not initialized");
  CHECK(call("IsInitialized", {uninit}) == "bool:false");
  CHECK(call("IsInitialized", {t("1")}) == "bool:true");
  CHECK(call("IsInitialized", {Tensor::error(ErrorKind::domain, "Div")}) == "bool:true");
  CHECK(call("IsInitialized", {Tensor::apply("restored", {Tensor::atom("w")})}) == "bool:true");
  CHECK(call("Uninitialize", {t("1"), t("true")}) == "error(uninitialized: the variable was destroyed)");
  CHECK(call("Uninitialize", {Tensor::atom("w"), t("true")}) == "error(uninitialized: the variable was destroyed)");
  CHECK(call("Uninitialize", {uninit, t("true")}) == "error(uninitialized: the variable was destroyed)");
}

TEST_CASE("matrices, reductions, concatenation, split and projection") {
  CHECK(call("MatMul", {t("[[1,2],[3,4]]"), t("[[5],[6]]")}) == "i32:[[17],[39]]");
  CHECK(call("MatMul", {t("[[1.0,2.0]]"), t("[[3.0],[4.0]]")}) == "f32:[[11.0]]");
  CHECK(call("Sum", {t("[[1,2],[3,4]]")}) == "i32:10");
  CHECK(call("Sum", {t("[[1,2],[3,4]]")}, {{"axis", std::int64_t{0}}}) == "i32:[4,6]");
  CHECK(call("Mean", {t("[[1.0,2.0],[3.0,4.0]]")}, {{"axis", std::int64_t{1}}}) == "f32:[1.5,3.5]");
  CHECK(call("Concat", {t("[1,2]"), t("[3]")}) == "i32:[1,2,3]");
  CHECK(call("Concat", {t("[[1],[2]]"), t("[[3],[4]]")}, {{"axis", std::int64_t{1}}}) == "i32:[[1,3],[2,4]]");
  CHECK(call("Split", {t("[1,2,3,4]")}) == "i32:[1,2] ; i32:[3,4]");
  CHECK(call("Split", {t("[1,2,3]")}) ==
        "error(shape mismatch: Split: dimension 0 of shape [3] is odd) ; error(shape mismatch: Split: dimension 0 of shape [3] is odd)");
  CHECK(call("Project", {t("[1,2,3]")}, {{"begin", std::int64_t{1}}}) == "i32:[2,3]");
  CHECK(call("Copy", {t("[1]")}) == "i32:[1] ; i32:[1]");
}

TEST_CASE("a long float sum is added in halves: its error grows with log n, not with n") {
  // 2^22 terms of 0.6f. Left to right, every term past a sum of 2^21 rounds to
  // a multiple of 0.25 and the sum ends about 1% off; in halves, within 1e-6.
  const auto value = [](const std::string& s) { return std::stod(s.substr(s.find_first_of("0123456789", 4))); };
  const double exact = 4194304.0 * static_cast<double>(0.6F);
  CHECK(value(call("Sum", {t(R"({"dtype":"f32","shape":[4194304],"fill":0.6})")})) == doctest::Approx(exact).epsilon(1e-6));
  // Along an axis with a stride between the terms.
  const auto columns = call("Sum", {t(R"({"dtype":"f32","shape":[2097152,2],"fill":0.6})")}, {{"axis", std::int64_t{0}}});
  CHECK(value(columns) == doctest::Approx(exact / 2).epsilon(1e-6));
  CHECK(value(call("Mean", {t(R"({"dtype":"f32","shape":[4194304],"fill":0.6})")})) == doctest::Approx(0.6).epsilon(1e-6));
}

TEST_CASE("a result over the tensor limits is the error resource exhausted, as TensorFlow's allocation failure") {
  // An outer product of two vectors of 2^14 + 1 elements has over 2^28.
  const auto column = t(R"({"dtype":"i32","shape":[16385,1],"fill":1})");
  const auto row = t(R"({"dtype":"i32","shape":[1,16385],"fill":1})");
  CHECK(call("MatMul", {column, row}) ==
        "error(resource exhausted: MatMul: a result of shape [16385,16385] is over 2^28 elements)");
  CHECK(call("MatMul", {row, column}) == "i32:[[16385]]");
}

TEST_CASE("symbolic arguments build terms; normalization is modulo the declared laws") {
  const auto A = Tensor::atom("A"), B = Tensor::atom("B"), C = Tensor::atom("C");
  CHECK(call("Add", {A, B}) == "Add(A,B)");
  CHECK(call("Split", {C}) == "Split.0(C) ; Split.1(C)");
  CHECK(call("Add", {A, t("1")}) == "Add(A,i32:1)");
  CHECK(call("Identity", {A}) == "A");
  const auto ab = Tensor::apply("Add", {B, A});
  CHECK(call("Add", {ab, C}, {}, true) == "Add(A,B,C)");
  CHECK(call("Add", {C, Tensor::apply("Add", {A, B})}, {}, true) == "Add(A,B,C)");
  CHECK(call("Sub", {B, A}, {}, true) == "Sub(B,A)");  // no laws: unchanged
  CHECK(call("Concat", {Tensor::apply("Concat", {B, A}), C}, {}, true) == "Concat(B,A,C)");  // associative only
}

TEST_CASE("a nondeterministic function is a relation with several results") {
  Attrs attrs{{"values", std::vector<Tensor>{t("1"), t("2"), Tensor::atom("Z")}}};
  CHECK(call("Choice", {}, attrs) == "i32:1 | i32:2 | Z");
}
