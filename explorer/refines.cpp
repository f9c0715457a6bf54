#include "explorer/refines.hpp"

namespace tfsem::explorer {

namespace {

// What an outcome shows on the shared fetches and variables, as text.
std::string projection(const Program& p, const Outcome& o, const std::set<std::string>& fetches,
                       const std::set<std::string>& vars) {
  std::string out;
  for (const auto& [fetch, c] : o.outputs)
    if (fetches.count(fetch)) out += (out.empty() ? "" : "; ") + fetch + "=" + content_to_string(p, c);
  for (std::size_t x = 0; x < o.var_value.size(); ++x)
    if (vars.count(p.variable(VarId(x)).name))
      out += (out.empty() ? "" : "; ") + p.variable(VarId(x)).name + "=" + o.var_value[x].to_string();
  if (!o.stuck.empty()) out += (out.empty() ? "" : "; ") + std::string("stuck");
  return out;
}

std::set<std::string> fetch_names(const Program& p) {
  std::set<std::string> out;
  for (const auto& e : p.edges())
    if (!p.fetch(e).empty()) out.emplace(p.fetch(e));
  return out;
}

std::set<std::string> variable_names(const Program& p) {
  std::set<std::string> out;
  for (const auto& v : p.variables()) out.insert(v.name);
  return out;
}

std::set<std::string> shared(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::set<std::string> out;
  for (const auto& x : a)
    if (b.count(x)) out.insert(x);
  return out;
}

}  // namespace

Refinement refines(const Semantics& a, const Semantics& b, const ExploreOptions& options) {
  Refinement r;
  const auto &pa = a.program(), &pb = b.program();
  r.fetches = shared(fetch_names(pa), fetch_names(pb));
  r.variables = shared(variable_names(pa), variable_names(pb));
  r.specification = explore(a, options);
  r.implementation = explore(b, options);
  if (!r.complete()) return r;
  std::set<std::string> allowed;
  for (const auto& o : r.specification.outcomes) allowed.insert(projection(pa, o, r.fetches, r.variables));
  for (const auto& o : r.implementation.outcomes)
    if (auto shown = projection(pb, o, r.fetches, r.variables); !allowed.count(shown)) r.extra.push_back({std::move(shown), o.witness});
  return r;
}

}  // namespace tfsem::explorer
