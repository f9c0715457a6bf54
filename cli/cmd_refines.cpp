// tfsem refines A B: every outcome of B is an outcome of A, on what the two
// share (fetch names and variables), for the feeds given. The check for any
// graph rewrite (DCE, CSE, constant folding, fusion, the function
// transformations): B refines A when it adds no behaviour.
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/graph_options.hpp"
#include "cli/search_options.hpp"
#include "explorer/explore.hpp"

#include <iostream>
#include <map>
#include <memory>
#include <set>

namespace tfsem::cli {

namespace {

struct RefinesCmd {
  GraphOptions graph;  // A: graph.file
  std::string implementation;
  SearchOptions search;
};

// What an outcome shows on the shared fetches and variables, as text.
std::string projection(const Program& p, const explorer::Outcome& o, const std::set<std::string>& fetches,
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

std::set<std::string> names_of(const Program& p, bool fetches) {
  std::set<std::string> out;
  if (fetches) {
    for (const auto& e : p.edges())
      if (e.is_output() && !e.fetch.empty()) out.emplace(e.fetch);
  } else {
    for (const auto& v : p.variables()) out.insert(v.name);
  }
  return out;
}

std::set<std::string> shared(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::set<std::string> out;
  for (const auto& x : a)
    if (b.count(x)) out.insert(x);
  return out;
}

int run_refines(const RefinesCmd& o) {
  const auto spec_sem = o.graph.load(), impl_sem = o.graph.load(o.implementation);
  const auto &a = spec_sem.program(), &b = impl_sem.program();
  const auto fetches = shared(names_of(a, true), names_of(b, true)), vars = shared(names_of(a, false), names_of(b, false));
  const auto options = o.search.make();
  const auto ra = explorer::explore(spec_sem, options), rb = explorer::explore(impl_sem, options);
  end_progress(options, rb);
  std::cout << "specification: " << a.name() << " (" << o.graph.file << "), " << ra.outcomes.size() << " outcomes\n"
            << "implementation: " << b.name() << " (" << o.implementation << "), " << rb.outcomes.size() << " outcomes\n"
            << "compared on:";
  for (const auto& f : fetches) std::cout << " " << f;
  for (const auto& x : vars) std::cout << " " << x;
  std::cout << "\n";
  for (const auto* r : {&ra, &rb})
    if (!r->complete) {
      std::cout << "INCOMPLETE: stopped by " << r->stopped_by << "\nverdict: incomplete\n";
      return kIncomplete;
    }
  std::set<std::string> allowed;
  for (const auto& out : ra.outcomes) allowed.insert(projection(a, out, fetches, vars));
  int extra = 0;
  for (const auto& out : rb.outcomes) {
    const auto shown = projection(b, out, fetches, vars);
    if (allowed.count(shown)) continue;
    ++extra;
    std::cout << "not in the specification: " << (shown.empty() ? "(nothing shared)" : shown)
              << " | witness " << schedule_to_string(impl_sem, out.witness) << "\n";
  }
  std::cout << "verdict: " << (extra == 0 ? "refines" : "does not refine") << "\n";
  return extra == 0 ? kSuccess : kPropertyViolated;
}

}  // namespace

Command add_refines(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "refines", "check that every outcome of graph B is one of graph A (a rewrite, a transformation, adds no behaviour)");
  auto o = std::make_shared<RefinesCmd>();
  o->graph.add_to(*sub);
  sub->add_option("B", o->implementation, "the graph whose outcomes must all be A's (same --feed)")->required();
  o->search.add_to(*sub);
  return {sub, [o] { return run_refines(*o); }};
}

}  // namespace tfsem::cli
