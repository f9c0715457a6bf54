#include "models/generate/spec_builder.hpp"

namespace tfsem::generate {

namespace {
OptionalPortRef port_ref(const std::optional<End>& e) {
  if (!e) return std::nullopt;
  return PortRef{e->node, e->port};
}
}  // namespace

SpecBuilder::SpecBuilder(std::string name, std::string description) {
  spec_.name = std::move(name);
  spec_.description = std::move(description);
}

void SpecBuilder::variable(const std::string& name, std::optional<Tensor> init) {
  spec_.variables.push_back({name, std::move(init), ""});
}

std::vector<std::string> SpecBuilder::variables() const {
  std::vector<std::string> out;
  for (const auto& v : spec_.variables) out.push_back(v.name);
  return out;
}

void SpecBuilder::declare(const std::string& name, bool stateful) {
  for (const auto& f : spec_.functions)
    if (f.name == name) return;
  spec_.functions.push_back({name, stateful, "", ""});
}

std::string SpecBuilder::node(const std::string& id, const std::string& op, const std::string& var, Attrs attrs) {
  spec_.nodes.push_back({id, op, var, std::move(attrs), ""});
  return id;
}

std::string SpecBuilder::edge_id(const std::string& hint) { return hint + "_" + std::to_string(next_edge_++); }

EdgeSpec& SpecBuilder::add(const std::string& kind, std::optional<End> from, std::optional<End> to,
                           decltype(EdgeSpec::value) value, std::optional<std::string> fetch, std::string id) {
  if (id.empty()) id = edge_id(kind == "control" ? "c" : kind == "variable" ? "v" : "t");
  EdgeSpec e;
  e.id = std::move(id);
  e.kind = kind;
  e.from = port_ref(from);
  e.to = port_ref(to);
  e.value = std::move(value);
  e.fetch = std::move(fetch);
  return spec_.edges.emplace_back(std::move(e));
}

void SpecBuilder::tensor(const End& from, const End& to) { add("tensor", from, to); }
void SpecBuilder::handle(const End& from, const End& to) { add("variable", from, to); }
void SpecBuilder::control(const std::string& from, const std::string& to) { add("control", End{from, {}}, End{to, {}}); }
void SpecBuilder::feed(const Tensor& value, const End& to) { add("tensor", std::nullopt, to, value); }
void SpecBuilder::go(const std::string& to) { add("control", std::nullopt, End{to, {}}, Go{}); }

void SpecBuilder::var_for(const std::string& accessor, const std::string& var) {
  const auto v = node("var_" + accessor, "Var", var);
  go(v);
  handle({v, 0}, {accessor, 0});
}

void SpecBuilder::output(const End& from, const std::string& fetch) {
  add("tensor", from, std::nullopt, {}, fetch, fetch);
}

void SpecBuilder::drop(const End& from) { add("tensor", from, std::nullopt, {}, ""); }

void SpecBuilder::arg(const std::string& arg, const End& to) {
  add("tensor", std::nullopt, to);
  bindings_.push_back({spec_.edges.size() - 1, arg, ""});
}
void SpecBuilder::result(const End& from, const std::string& result) {
  add("tensor", from, std::nullopt);
  bindings_.push_back({spec_.edges.size() - 1, "", result});
}

void SpecBuilder::library(LibraryFunction f) { spec_.library.push_back(std::move(f)); }

LibraryFunction SpecBuilder::function(std::string name, std::vector<std::string> args,
                                      std::vector<std::string> results) && {
  LibraryFunction f{std::move(name), std::move(args), std::move(results), std::move(spec_.nodes), body_edges(std::move(spec_.edges)), ""};
  for (auto& [edge, arg, result] : bindings_) {
    f.edges[edge].arg = std::move(arg);
    f.edges[edge].result = std::move(result);
  }
  return f;
}

}  // namespace tfsem::generate
