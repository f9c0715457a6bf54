// Terms as DAGs: hash-consed, compared along one path, printed with their
// shared subterms named once.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "semantics/registry.hpp"
#include "semantics/term_text.hpp"
#include "semantics/tensor.hpp"

using namespace tfsem;

namespace {

// a_0 = X, a_k = F(a_(k-1), a_(k-1)): `levels` distinct terms above X, 2^levels leaves.
Tensor doubling(std::size_t levels, const char* head = "F", const char* atom = "X") {
  auto a = Tensor::atom(atom);
  for (std::size_t k = 0; k < levels; ++k) a = Tensor::apply(head, {a, a});
  return a;
}

// The order compare() gives, computed on the trees, without interning's shortcuts.
int tree_order(const Tensor& a, const Tensor& b) {
  if (a.kind() != b.kind()) return a.kind() < b.kind() ? -1 : 1;
  if (!a.is_term()) return compare(a, b) < 0 ? -1 : compare(a, b) > 0 ? 1 : 0;
  const auto &x = a.as_term(), &y = b.as_term();
  if (x.atom != y.atom) return x.atom < y.atom ? -1 : 1;
  if (x.head != y.head) return x.head < y.head ? -1 : 1;
  for (std::size_t i = 0; i < std::min(x.args.size(), y.args.size()); ++i)
    if (const auto c = tree_order(x.args[i], y.args[i]); c != 0) return c;
  return x.args.size() == y.args.size() ? 0 : x.args.size() < y.args.size() ? -1 : 1;
}

// A small random term over atoms A, B, heads F, G (one or two arguments) and the scalar 1.
Tensor random_term(std::mt19937& rng, int depth) {
  const auto pick = rng() % 6;
  if (depth == 0 || pick < 2) return Tensor::atom(pick == 0 ? "A" : "B");
  if (pick == 2) return Tensor::scalar(std::int32_t{1});
  std::vector<Tensor> args{random_term(rng, depth - 1)};
  if (pick == 5) args.push_back(random_term(rng, depth - 1));
  return Tensor::apply(pick == 3 ? "F" : "G", std::move(args));
}

}  // namespace

TEST_CASE("each distinct term exists once: made twice, it is the same object") {
  const auto a = Tensor::apply("F", {Tensor::atom("A"), Tensor::scalar(std::int32_t{2})});
  const auto b = Tensor::apply("F", {Tensor::atom("A"), Tensor::scalar(std::int32_t{2})});  // an equal dense argument
  CHECK(a.identity() == b.identity());
  CHECK(a == b);
  CHECK(a.hash() == b.hash());
  CHECK(Tensor::atom("A").identity() != Tensor::apply("A", {}).identity());  // an atom is not a nullary application
  CHECK_FALSE(a == Tensor::apply("F", {Tensor::atom("A"), Tensor::scalar(std::int32_t{3})}));
  CHECK_FALSE(a == Tensor::apply("F", {Tensor::atom("A"), Tensor::scalar(std::int64_t{2})}));
}

TEST_CASE("a term lives while it is referenced and leaves the table with its last reference") {
  const auto before = Tensor::live_terms();
  {
    const auto a = doubling(24, "Live", "Live_X");
    CHECK(Tensor::live_terms() == before + 25);  // the atom and 24 applications, not 2^24 nodes
    const auto again = doubling(24, "Live", "Live_X");
    CHECK(again.identity() == a.identity());
    CHECK(Tensor::live_terms() == before + 25);
  }
  CHECK(Tensor::live_terms() == before);
}

TEST_CASE("a 10,000-level shared term is made, hashed, compared, printed and freed in linear time and bounded stack") {
  const auto start = std::chrono::steady_clock::now();
  const auto before = Tensor::live_terms();
  {
    const auto a = doubling(10000), b = doubling(10000);
    const auto c = doubling(10000, "F", "Y");  // differs at the bottom only
    CHECK(Tensor::live_terms() == before + 20002);  // X and Y, and 10,000 applications over each
    CHECK(a.identity() == b.identity());
    CHECK(a == b);
    CHECK_FALSE(a == c);
    CHECK(a.hash() != c.hash());
    CHECK(compare(a, c) < 0);  // X before Y, found 10,000 levels down
    CHECK(compare(c, a) > 0);
    const auto text = a.to_string();
    CHECK(text.starts_with("F(%9999,%9999) where {%1 = F(X,X); %2 = F(%1,%1); "));
    CHECK(text.ends_with("; %9999 = F(%9998,%9998)}"));
    CHECK(text.size() < 30 * 10000);
  }
  CHECK(Tensor::live_terms() == before);
  // Generous: a tree walk would not end; the linear work takes milliseconds.
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
}

TEST_CASE("a chain 200,000 levels deep is compared, printed and freed without recursion") {
  auto chain = [](const char* atom) {
    auto a = Tensor::atom(atom);
    for (int k = 0; k < 200000; ++k) a = Tensor::apply("G", {a});
    return a;
  };
  const auto before = Tensor::live_terms();
  {
    const auto x = chain("X"), y = chain("Y");
    CHECK(compare(x, y) < 0);
    const auto text = x.to_string();
    CHECK(text.size() == 200000 * 3 + 1);  // G( and ) per level, and X: no repeats, no names
    CHECK(text.starts_with("G(G(G(X") == false);
    CHECK(text.find("G(X)") == 2 * 199999);
  }
  CHECK(Tensor::live_terms() == before);
}

TEST_CASE("compare on interned terms is the structural order of their trees") {
  std::mt19937 rng(7);
  std::vector<Tensor> terms;
  for (int i = 0; i < 300; ++i) terms.push_back(random_term(rng, 4));
  for (const auto& a : terms)
    for (const auto& b : terms) {
      const auto c = compare(a, b);
      CHECK((c < 0 ? -1 : c > 0 ? 1 : 0) == tree_order(a, b));
      CHECK((c == 0) == (a == b));
    }
}

TEST_CASE("threads making and freeing the same terms at once get one object per term") {
  constexpr int kThreads = 4;
  std::vector<Tensor> kept(kThreads, Tensor::atom("Thread_X"));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&kept, t] {
      for (int round = 0; round < 200; ++round) {  // made, freed and made again while the others do the same
        auto a = Tensor::atom("Thread_X");
        for (int k = 0; k < 50; ++k) a = Tensor::apply("F", {a, Tensor::atom("Thread_Y")});
        kept[static_cast<std::size_t>(t)] = a;
      }
    });
  for (auto& th : threads) th.join();
  for (const auto& a : kept) {
    CHECK(a.identity() == kept[0].identity());
    CHECK(a.hash() == kept[0].hash());
  }
}

TEST_CASE("text: flat without repeated subterms, shared subterms named once in order") {
  const auto A = Tensor::atom("A"), B = Tensor::atom("B");
  CHECK(Tensor::apply("Add", {A, A}).to_string() == "Add(A,A)");  // atoms are never named
  CHECK(Tensor::apply("F", {}).to_string() == "F()");
  const auto ab = Tensor::apply("Mul", {A, B});
  CHECK(Tensor::apply("Add", {ab, Tensor::apply("Neg", {ab})}).to_string() == "Add(%1,Neg(%1)) where {%1 = Mul(A,B)}");
  CHECK(doubling(2).to_string() == "F(%1,%1) where {%1 = F(X,X)}");
  // Inside a named subterm, a subterm used once stays inline.
  const auto g = Tensor::apply("G", {Tensor::apply("H", {A})});
  CHECK(Tensor::apply("F", {g, g}).to_string() == "F(%1,%1) where {%1 = G(H(A))}");
}

TEST_CASE("a scope names the subterms shared in one value for every value written in it") {
  TermNames names;
  const TermNames::Scope scope(names);
  const auto a2 = doubling(2), a1 = doubling(1);
  CHECK(a2.to_string() == "F(%1,%1)");
  CHECK(Tensor::apply("G", {a1}).to_string() == "G(%1)");  // named by the value before
  CHECK(Tensor::apply("G", {Tensor::atom("A")}).to_string() == "G(A)");
  REQUIRE(names.definitions().size() == 1);
  CHECK(names.definitions()[0].name == "%1");
  CHECK(names.definitions()[0].text == "F(X,X)");
}

TEST_CASE("a group names the subterms its values share, within one value or across them") {
  const auto A = Tensor::atom("A"), B = Tensor::atom("B");
  const auto g = Tensor::apply("G", {A}), h = Tensor::apply("H", {g});
  TermNames names;
  CHECK(names.group([&] { return h.to_string() + " " + Tensor::apply("F", {g, B}).to_string() + " " + h.to_string(); }) ==
        "H(%1) F(%1,B) H(%1)");  // G(A), an argument in two values, named; H(G(A)), a value twice but no argument, not
  REQUIRE(names.definitions().size() == 1);
  CHECK(names.definitions()[0].text == "G(A)");
  TermNames chain;  // a value that is an argument of another one
  CHECK(chain.group([&] { return g.to_string() + " " + h.to_string(); }) == "%1 H(%1)");
  TermNames none;
  CHECK(none.group([&] { return h.to_string() + " " + h.to_string() + " " + Tensor::apply("F", {B}).to_string(); }) ==
        "H(G(A)) H(G(A)) F(B)");
  CHECK(none.definitions().empty());
}

TEST_CASE("AC normalization of shared terms: flattened and sorted, the same term whatever the order") {
  const auto* add = Registry::builtin().find("Add");
  REQUIRE(add != nullptr);
  const auto B = Tensor::atom("B"), D = Tensor::atom("D"), E = Tensor::atom("E");
  auto normalized = [&](const Tensor& x, const Tensor& y) { return apply_function(*add, std::vector<Tensor>{x, y}, {}, {true})[0]; };
  const auto bde = normalized(normalized(B, D), E), edb = normalized(E, normalized(D, B));
  CHECK(bde.to_string() == "Add(B,D,E)");
  CHECK(bde.identity() == edb.identity());
  const auto f = Tensor::apply("F", {B});
  CHECK(normalized(normalized(f, E), f).to_string() == "Add(%1,%1,E) where {%1 = F(B)}");  // applications before atoms
}
