// Graphs whose values share subterms: the explorer checks them and the check
// report prints them with each shared subterm once, so the report grows with
// the graph, not with the size of the values' trees.
#include <doctest/doctest.h>

#include "report/check.hpp"
#include "support/graphs.hpp"

#include <cctype>
#include <map>
#include <string>

using namespace tfsem;
using nlohmann::json;

namespace {

// A graph under construction: each result feeds its consumers through a tree
// of Copy nodes (one output port feeds one edge).
class GraphBuilder {
 public:
  explicit GraphBuilder(std::string name, const std::vector<std::string>& functions) {
    doc_ = {{"name", std::move(name)}, {"nodes", json::array()}, {"edges", json::array()}};
    for (const auto& f : functions) doc_["functions"][f] = json::object();
  }
  // A node applying op; its inputs are its ports 0, 1, ...
  std::string node(const std::string& op, const std::vector<std::string>& inputs) {
    const auto id = op + "_" + std::to_string(doc_["nodes"].size());
    doc_["nodes"].push_back({{"id", id}, {"op", op}});
    for (std::size_t i = 0; i < inputs.size(); ++i) connect(inputs[i], id + ":" + std::to_string(i));
    return id;
  }
  // Port `from` (a node's, or `=A`: the atom A fed in) to port `to`, through Copies when used more than once.
  void connect(const std::string& from, const std::string& to) { uses_[from].push_back(to); }
  // An output edge from port `from`, fetched as `name`.
  void fetch(const std::string& from, const std::string& name) { connect(from, "!" + name); }

  std::shared_ptr<const Program> build() {
    for (const auto& [from, to] : uses_) fan(from, to);
    return test::program_from(doc_.dump());
  }

 private:
  // An edge to port `to`, or fetched as `name` when `to` is `!name`.
  void edge(const std::string& from, const std::string& to) {
    json e = {{"id", to.starts_with("!") ? to.substr(1) : "e" + std::to_string(doc_["edges"].size())}, {"kind", "tensor"}};
    if (from.starts_with("=")) e["value"] = from.substr(1);
    else e["from"] = from;
    if (!to.starts_with("!")) e["to"] = to;
    doc_["edges"].push_back(e);
  }
  void fan(const std::string& from, std::vector<std::string> to) {
    if (to.size() == 1) return edge(from, to[0]);
    const auto copy = "Copy_" + std::to_string(doc_["nodes"].size());
    doc_["nodes"].push_back({{"id", copy}, {"op", "Copy"}});
    edge(from, copy);
    edge(copy + ":0", to.back());
    to.pop_back();
    fan(copy + ":1", std::move(to));
  }

  json doc_;
  std::map<std::string, std::vector<std::string>> uses_;
};

// a_0 = X, a_k = F(a_(k-1), a_(k-1)), fetched as y: 2^levels leaves in its tree.
std::shared_ptr<const Program> doubling_graph(int levels) {
  GraphBuilder g("doubling", {"F"});
  std::string a = "=X";
  for (int k = 0; k < levels; ++k) a = g.node("F", {a, a});
  g.fetch(a, "y");
  return g.build();
}

std::string doubling_tree(int levels) {
  std::string t = "X";
  for (int k = 0; k < levels; ++k) t = "F(" + t + "," + t + ")";
  return t;
}

// The value's text with every name (% and digits) replaced by its
// definition, as a reader of the JSON report rebuilds it.
std::string rebuild(const std::string& value, const json& terms) {
  std::map<std::string, std::string> tree;
  auto expand = [&](const std::string& text) {
    std::string out;
    for (std::size_t at = 0; at < text.size();) {
      auto end = at + 1;
      while (text[at] == '%' && end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])) != 0) ++end;
      out += end > at + 1 ? tree.at(text.substr(at, end - at)) : text.substr(at, 1);
      at = end;
    }
    return out;
  };
  for (const auto& d : terms) tree[d["name"]] = expand(d["term"]);  // each uses only names defined before it
  return expand(value);
}

struct Checked {
  std::string text;
  json doc;
};

Checked check(const Program& p, Options options = {}) {
  const Semantics sem(std::shared_ptr<const Program>(&p, [](const Program*) {}), options);
  const auto r = explorer::explore(sem);
  const report::CheckFixes fixes;
  const std::vector<explorer::distributed::RankReport> ranks;
  const report::CheckReport report{sem, r, fixes, ranks};
  return {report::check_text(report), report::check_json(report)};
}

}  // namespace

TEST_CASE("a 24-level doubling graph is checked and reported in under a kilobyte a level") {
  constexpr int kLevels = 24;
  const auto program = doubling_graph(kLevels);
  const auto [text, doc] = check(*program);
  CHECK(text.size() < 1024 * kLevels);
  CHECK(doc.dump().size() < 1024 * kLevels);
  CHECK(doc["verdict"] == "deterministic");
  REQUIRE(doc["outcomes"].size() == 1);
  const auto& outcome = doc["outcomes"][0];
  CHECK(outcome["outputs"]["y"] == "F(%23,%23)");
  REQUIRE(outcome["terms"].size() == kLevels - 1);
  CHECK(outcome["terms"][0] == json{{"name", "%1"}, {"term", "F(X,X)"}});
  CHECK(outcome["terms"][22] == json{{"name", "%23"}, {"term", "F(%22,%22)"}});
  CHECK(text.find("\nterm: %1 = F(X,X)\nterm: %2 = F(%1,%1)\n") != std::string::npos);
  CHECK(text.find("\nterm: %23 = F(%22,%22)\noutcome: y=F(%23,%23) | ") != std::string::npos);
}

TEST_CASE("the JSON report's terms rebuild each value's tree") {
  for (const int levels : {1, 2, 3, 5}) {
    const auto [text, doc] = check(*doubling_graph(levels));
    const auto& outcome = doc["outcomes"][0];
    CHECK(rebuild(outcome["outputs"]["y"], outcome.value("terms", json::array())) == doubling_tree(levels));
  }
  const auto [text, doc] = check(*doubling_graph(1));
  CHECK(text.find("\noutcome: y=F(X,X) | ") != std::string::npos);  // no subterm shared: no terms, the text as ever
  CHECK(text.find("term: ") == std::string::npos);
  CHECK(!doc["outcomes"][0].contains("terms"));
}

// An LSTM unrolled over `steps` (a frozen graph: the weights are constants,
// here atoms): every gate reads x_t and h, c feeds the forget product and
// the new h, and the tree of h_t is exponential in t.
TEST_CASE("an LSTM-shaped frozen graph, 32 steps of gates sharing their inputs, is checked") {
  constexpr int kSteps = 32;
  GraphBuilder g("lstm", {"Tanh"});
  std::string h = "=H0", c = "=C0";
  for (int t = 0; t < kSteps; ++t) {
    const auto x = "=X" + std::to_string(t);
    auto gate = [&](const std::string& w) {
      return g.node("Add", {g.node("Add", {g.node("MatMul", {x, "=W" + w}), g.node("MatMul", {h, "=U" + w})}), "=B" + w});
    };
    const auto i = g.node("Sigmoid", {gate("i")}), f = g.node("Sigmoid", {gate("f")}), o = g.node("Sigmoid", {gate("o")});
    const auto cell = g.node("Tanh", {gate("g")});
    c = g.node("Add", {g.node("Mul", {f, c}), g.node("Mul", {i, cell})});
    h = g.node("Mul", {o, g.node("Tanh", {c})});
  }
  g.fetch(h, "h");
  g.fetch(c, "c");
  const auto program = g.build();
  const auto [text, doc] = check(*program, {.terms = {.normalize = true}});
  CHECK(doc["verdict"] == "deterministic");
  REQUIRE(doc["outcomes"].size() == 1);
  const auto& terms = doc["outcomes"][0]["terms"];
  // h and c of every step are named (each used more than once), but the last h, fetched alone.
  CHECK(terms.size() == 2 * kSteps - 1);
  CHECK(text.find("\noutcome: c=%63; h=Mul(Sigmoid(Add(MatMul(%62,Uo),MatMul(X31,Wo),Bo)),Tanh(%63)) | ") != std::string::npos);
  CHECK(text.size() < 1024 * kSteps);
  // AC normalization: a gate's Add(Add(MatMul, MatMul), B) is one flattened Add, its arguments sorted.
  CHECK(text.find("Add(MatMul(X0,Wi),MatMul(H0,Ui),Bi)") == std::string::npos);
  CHECK(text.find("Sigmoid(Add(MatMul(H0,Ui),MatMul(X0,Wi),Bi))") != std::string::npos);
}
