#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "formats/json/graph_json.hpp"
#include "support/hash.hpp"
#include "semantics/tensor.hpp"

using namespace tfsem;
using nlohmann::json;

TEST_CASE("dense literals take TensorFlow's default dtypes and nested shapes") {
  auto t = format::parse_tensor(json::parse("[[1,2],[3,4]]"), "/v");
  CHECK(t.to_string() == "i32:[[1,2],[3,4]]");
  CHECK(t.as_dense().shape == Shape{2, 2});
  CHECK(format::parse_tensor(json::parse("2.5"), "/v").to_string() == "f32:2.5");
  CHECK(format::parse_tensor(json::parse("true"), "/v").to_string() == "bool:true");
  CHECK(format::parse_tensor(json::parse(R"({"dtype":"i64","shape":[3],"fill":7})"), "/v").to_string() == "i64:[7,7,7]");
  CHECK(format::parse_tensor(json::parse(R"({"dtype":"f64","value":[]})"), "/v").to_string() == "f64:[]");
}

TEST_CASE("symbolic atoms, terms and errors are tensors too") {
  auto a = format::parse_tensor(json::parse("\"A\""), "/v");
  CHECK(a.is_term());
  CHECK(Tensor::apply("Add", {a, Tensor::atom("B")}).to_string() == "Add(A,B)");
  auto e = format::parse_tensor(json::parse(R"({"error":"domain","message":"m"})"), "/v");
  CHECK(e.to_string() == "error(domain: m)");
}

TEST_CASE("equality and hashing are structural") {
  auto x = format::parse_tensor(json::parse("[1,2]"), "/v");
  auto y = format::parse_tensor(json::parse(R"({"dtype":"i32","value":[1,2]})"), "/v");
  auto z = format::parse_tensor(json::parse(R"({"dtype":"i64","value":[1,2]})"), "/v");
  CHECK(x == y);
  CHECK(x.hash() == y.hash());
  CHECK_FALSE(x == z);
  CHECK(Tensor::apply("Add", {Tensor::atom("A")}) == Tensor::apply("Add", {Tensor::atom("A")}));
  CHECK_FALSE(Tensor::atom("A") == Tensor::apply("A", {}));
}

TEST_CASE("V-NAN: a float tensor has one NaN, whatever its sign and payload") {
  Buffer<double> nans(3);
  nans[0] = -std::numeric_limits<double>::quiet_NaN();
  nans[1] = std::numeric_limits<double>::signaling_NaN();
  nans[2] = 0.0 / 0.0;
  Buffer<double> quiet(3);
  quiet.setConstant(std::numeric_limits<double>::quiet_NaN());
  const auto a = Tensor::dense({3}, Storage{nans});
  const auto b = Tensor::dense({3}, Storage{quiet});
  CHECK(a == b);
  CHECK(a.hash() == b.hash());
  CHECK(format::parse_tensor(format::tensor_to_json(a), "/v") == a);  // written "nan", read back equal
}

TEST_CASE("a scalar made in place equals the one the general constructor makes, NaN and hash included") {
  Buffer<std::int32_t> seven(1);
  seven[0] = 7;
  const auto general = Tensor::dense({}, Storage{seven});
  CHECK(Tensor::scalar(std::int32_t{7}) == general);
  CHECK(Tensor::scalar(std::int32_t{7}).hash() == general.hash());
  CHECK(Tensor::scalar(-std::numeric_limits<float>::quiet_NaN()) ==
        Tensor::scalar(std::numeric_limits<float>::signaling_NaN()));  // V-NAN
}

TEST_CASE("element buffers: inline up to 16 bytes, on the heap past them, copied and moved by value") {
  auto filled = [](Buffer<std::int64_t>::Index n) {
    auto b = Buffer<std::int64_t>::Constant(n, 0);
    for (Buffer<std::int64_t>::Index i = 0; i < n; ++i) b[i] = i + 1;
    return b;
  };
  for (const Buffer<std::int64_t>::Index n : {1, 2, 3, 100}) {  // two int64 fit inline
    CAPTURE(n);
    const auto original = filled(n);
    auto copy = original;
    auto moved = std::move(copy);
    CHECK(copy.size() == 0);
    REQUIRE(moved.size() == n);
    for (Buffer<std::int64_t>::Index i = 0; i < n; ++i) CHECK(moved[i] == original[i]);
    moved = filled(1);  // a heap buffer replaced by an inline one, and the reverse
    CHECK(moved[0] == 1);
    moved = filled(50);
    CHECK(moved[49] == 50);
  }
}

TEST_CASE("a tensor's hash, computed when first asked for, is the same on every thread") {
  const auto t = format::parse_tensor(json::parse("[[1,2],[3,4]]"), "/v");
  const auto expected = format::parse_tensor(json::parse("[[1,2],[3,4]]"), "/v").hash();
  std::size_t seen[2] = {};
  std::thread a([&] { seen[0] = t.hash(); }), b([&] { seen[1] = t.hash(); });
  a.join();
  b.join();
  CHECK(seen[0] == expected);
  CHECK(seen[1] == expected);
}

TEST_CASE("large tensors print as shape and content hash") {
  auto t = format::parse_tensor(json::parse(R"({"dtype":"f32","shape":[100,100],"fill":0.5})"), "/v");
  CHECK(t.to_string().starts_with("f32:[100,100]#"));
}

TEST_CASE("malformed tensor literals are rejected with their JSON path") {
  auto bad = [](const char* text) {
    try {
      format::parse_tensor(json::parse(text), "/variables/x");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(bad("[[1,2],[3]]") == "/variables/x/1: ragged nested array: not a tensor of shape [2,2] [G-JSON]");
  CHECK(bad(R"({"dtype":"i8","value":1})") == "/variables/x/dtype: unknown dtype 'i8' (f32, f64, i32, i64, bool) [G-JSON]");
  CHECK(bad(R"({"dtype":"i32","value":[1.5]})") == "/variables/x/value/0: a i32 tensor holds integers, not 1.5 [G-JSON]");
  CHECK(bad(R"({"dtype":"i32","value":3000000000})") == "/variables/x/value: 3000000000 does not fit in i32 [G-JSON]");
  CHECK(bad("\"GO\"") == "/variables/x: 'GO' is reserved: GO and EMPTY are not tensors [G-JSON]");
  CHECK(bad("\"a b\"") == "/variables/x: symbolic atom 'a b' must be an identifier (letters, digits, _) [G-JSON]");
  CHECK(bad(R"({"dtype":"i32","value":[[1],[[2]]]})") == "/variables/x/value/1/0: ragged nested array: not a tensor [G-JSON]");
  CHECK(bad(R"({"dtype":"bool","value":[[true]],"shape":[1,1,1]})") ==
        "/variables/x/value: value has shape [1,1], not [1,1,1] [G-JSON]");
  CHECK(bad(R"({"dtype":"i32","value":[{"a":[1]}]})") == "/variables/x/value/0: a i32 tensor holds numbers, not object [G-JSON]");
}

TEST_CASE("tensor literals beyond the limits (kMaxRank dimensions, kMaxElements elements) are refused, not allocated") {
  auto message = [](const std::string& text) {
    try {
      format::parse_tensor(json::parse(text), "/v");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(message(std::string(300, '[') + std::string(300, ']')) == "/v: nested deeper than 254 dimensions [G-JSON]");
  CHECK(message(R"({"dtype":"f32","shape":[65536,65536],"fill":0})") ==
        "/v/shape: tensor too large (its nonzero dimensions multiply to over 2^28) [G-JSON]");
  CHECK(message(R"({"dtype":"f32","shape":[0,268435457],"fill":0})") ==
        "/v/shape/1: a dimension is an integer in [0, 2^28] [G-JSON]");
  CHECK(message(R"({"dtype":"f32","shape":[0,268435456,268435456],"fill":0})") ==
        "/v/shape: tensor too large (its nonzero dimensions multiply to over 2^28) [G-JSON]");
  CHECK(message(R"({"dtype":"i64","shape":[0,65536],"fill":0})") == "accepted");
  CHECK(shape_within_limits(Shape(254, 1)));
  CHECK_FALSE(shape_within_limits(Shape(255, 1)));
  CHECK_FALSE(shape_within_limits(Shape{-1}));
}

TEST_CASE("tensors round-trip through JSON output") {
  auto t = format::parse_tensor(json::parse(R"({"dtype":"f64","value":[[1.5,2],[3,4]]})"), "/v");
  CHECK(format::parse_tensor(format::tensor_to_json(t), "/v") == t);
  // JSON has no number for infinities and NaN: they go out and come back as strings.
  Buffer<float> special(3);
  special[0] = std::numeric_limits<float>::infinity();
  special[1] = -std::numeric_limits<float>::infinity();
  special[2] = 0.5F;
  const auto s = Tensor::dense({3}, Storage{special});
  CHECK(format::parse_tensor(format::tensor_to_json(s), "/v") == s);
  const auto nan = format::parse_tensor(json::parse(R"({"dtype":"f32","value":"nan"})"), "/v");
  CHECK(std::isnan(std::get<Buffer<float>>(nan.as_dense().data)[0]));
}

TEST_CASE("an explicit shape must agree with the value, and shapes empty tensors") {
  CHECK(format::parse_tensor(nlohmann::json::parse(R"({"dtype":"f32","shape":[0,3],"value":[]})"), "/v")
            .as_dense()
            .shape == Shape{0, 3});
  CHECK_THROWS_WITH(format::parse_tensor(nlohmann::json::parse(R"({"dtype":"i32","shape":[3],"value":[1,2]})"), "/v"),
                    "/v/value: value has shape [2], not [3] [G-JSON]");
}

TEST_CASE("names' hashes: the last bytes and the length both count") {
  // Pairs of lengths whose tails overlap (4 to 7 bytes, and past 8) or whose
  // first bytes could cancel a length kept only in the low bits.
  for (const auto& [a, b] : {std::pair{"c_1145", "b_11145"}, {"aaaa", "`aaaa"}, {"a11111115", "b111111115"}})
    CHECK(hash_name(a) != hash_name(b));
  // Every name of up to 3 bytes over a small alphabet, and the node and edge
  // ids of a large generated graph, have hashes of their own.
  std::vector<std::string> names{""};
  for (std::size_t n = 1, from = 0; n <= 3; ++n) {
    const auto to = names.size();
    for (auto i = from; i < to; ++i)
      for (const char c : std::string("ab_0:")) names.push_back(names[i] + c);
    from = to;
  }
  for (int i = 0; i < 200000; ++i) {
    names.push_back("n" + std::to_string(i));
    names.push_back("c_" + std::to_string(i));
  }
  std::set<std::uint64_t> seen;
  for (const auto& name : names) seen.insert(hash_name(name));
  CHECK(seen.size() == names.size());
}

TEST_CASE("hash_bytes: every byte and the length count, at every length across its steps and lanes") {
  // Lengths around the 16-byte steps and the four lanes' 64-byte blocks; a
  // row of zeros and one with a single byte changed, each anywhere.
  std::set<std::uint64_t> seen;
  std::size_t hashed = 0;
  std::vector<std::size_t> lengths(201);
  std::iota(lengths.begin(), lengths.end(), std::size_t{0});
  lengths.push_back(296);  // a full row of lost-update-8
  for (const auto n : lengths) {
    std::vector<unsigned char> bytes(n, 0);
    seen.insert(hash_bytes(bytes.data(), n));
    ++hashed;
    for (std::size_t i = 0; i < n; ++i)
      for (const unsigned char b : {std::uint8_t{0x01}, std::uint8_t{0x80}}) {
        bytes[i] = b;
        seen.insert(hash_bytes(bytes.data(), n));
        ++hashed;
        bytes[i] = 0;
      }
  }
  CHECK(seen.size() == hashed);
  // Blocks of 16 bytes swapped between any two lanes give different hashes.
  std::vector<std::uint32_t> row(74);
  std::iota(row.begin(), row.end(), std::uint32_t{1});
  for (std::size_t a = 0; a < 4; ++a)
    for (std::size_t b = a + 1; b < 4; ++b) {
      auto swapped = row;
      std::swap_ranges(swapped.begin() + 4 * a, swapped.begin() + 4 * a + 4, swapped.begin() + 4 * b);
      CHECK(hash_words(row.data(), row.size()) != hash_words(swapped.data(), swapped.size()));
    }
}
