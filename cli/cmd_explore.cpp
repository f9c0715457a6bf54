// tfsem explore FILE: the search counters of each reduction side by side, and
// optionally the explored state graph as Graphviz (--dot).
#include "cli/commands.hpp"
#include "cli/dot.hpp"
#include "cli/output.hpp"
#include "cli/exit_codes.hpp"
#include "cli/graph_options.hpp"
#include "cli/search_options.hpp"
#include "semantics/diagnostic.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

namespace tfsem::cli {

namespace {

struct ExploreCmd {
  GraphOptions graph;
  SearchOptions search;
  std::vector<std::string> pors{"none", "stubborn", "rf"};
  bool json = false;
  std::string dot;
  std::uint64_t dot_max_states = 500;
};

// The explored state graph: each state with its VarValue and non-EMPTY edges,
// terminal states doubled, each transition labelled with its firings.
class StateGraphDot {
 public:
  StateGraphDot(const Semantics& sem, std::uint64_t max_states) : sem_(sem), max_(max_states) {}

  explorer::Observer observer() {
    return {[this](std::uint32_t i, const State& s, bool terminal) {
              if (i >= max_) return;
              out_ << "  s" << i << " [label=\"s" << i << "\\l" << dot_escape(state_to_string(sem_.program(), sem_.contexts(), s, "", 8)) << "\""
                   << (terminal ? ", peripheries=2" : "") << (i == 0 ? ", style=bold" : "") << "];\n";
            },
            [this](std::uint32_t from, std::uint32_t to, const Schedule& steps) {
              if (from >= max_ || to >= max_) return;
              out_ << "  s" << from << " -> s" << to << " [label=\"" << dot_escape(schedule_to_string(sem_, steps)) << "\"];\n";
            }};
  }

  void write(const std::string& file, std::uint64_t states) const {
    if (states > max_)
      throw InputError("", "--dot", "", "the explored state graph has " + std::to_string(states) +
                                            " states; --dot draws at most " + std::to_string(max_) +
                                            " (raise --dot-max-states, or pick a stronger --por)");
    write_text("digraph states {\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n  label=\"" +
                  dot_escape(sem_.program().name()) + ": explored state graph\";\n" + out_.str() + "}\n",
              file);
  }

 private:
  const Semantics& sem_;
  std::uint64_t max_;
  std::ostringstream out_;
};

int run_explore(const ExploreCmd& o) {
  const auto sem = o.graph.load();
  const auto& p = sem.program();
  if (o.search.distributed && !o.dot.empty()) throw InputError("", "--dot", "", "--distributed draws no state graph");
  std::vector<explorer::Result> results;
  std::vector<std::vector<explorer::distributed::RankReport>> ranks(o.pors.size());
  for (const auto& name : o.pors) {
    const auto por = *explorer::parse_por(name);
    auto opts = o.search.make(por);
    const bool draw = !o.dot.empty() && &name == &o.pors.back();
    StateGraphDot dot(sem, o.dot_max_states);
    if (draw) opts.observer = dot.observer();
    results.push_back(o.search.explore(sem, opts, &ranks[results.size()]));
    end_progress(opts, results.back());
    if (results.back().stopped_by == "interrupt") break;  // the reductions not run yet are left out
    if (draw) dot.write(o.dot, results.back().counters.states_stored);
  }
  struct Row {
    const char* key;
    std::uint64_t (*get)(const explorer::Result&);
  };
  static const Row rows[] = {
      {"states-stored", [](const explorer::Result& r) { return r.counters.states_stored; }},
      {"states-matched", [](const explorer::Result& r) { return r.counters.states_matched; }},
      {"transitions", [](const explorer::Result& r) { return r.counters.transitions; }},
      {"terminal-states", [](const explorer::Result& r) { return r.counters.terminal_states; }},
      {"behaviours-explored", [](const explorer::Result& r) { return r.counters.behaviours; }},
      {"transitions-pruned", [](const explorer::Result& r) { return r.counters.transitions_pruned; }},
      {"outcomes", [](const explorer::Result& r) { return std::uint64_t{r.outcomes.size()}; }},
      {"races", [](const explorer::Result& r) { return std::uint64_t{r.races.size()}; }},
      {"memory-kib", [](const explorer::Result& r) { return r.memory_bytes >> 10; }},
      // The process's peak memory, and the visited states' own structures, per stored state.
      {"bytes-per-state", [](const explorer::Result& r) { return r.memory_bytes / std::max<std::uint64_t>(1, r.counters.states_stored); }},
      {"store-bytes-per-state", [](const explorer::Result& r) { return r.store_bytes / std::max<std::uint64_t>(1, r.counters.states_stored); }},
  };
  bool complete = true;
  for (const auto& r : results) complete = complete && r.complete;
  if (!o.search.reports()) return o.search.exit_code(kSuccess);
  if (o.json) {
    nlohmann::json j = {{"graph", p.name()}, {"hash", p.hash_hex()}, {"complete", complete}};
    for (std::size_t k = 0; k < results.size(); ++k) {
      nlohmann::json c = {{"complete", results[k].complete}, {"stopped_by", results[k].stopped_by},
                          {"seconds", results[k].seconds}};
      for (const auto& row : rows) c[row.key] = row.get(results[k]);
      if (o.search.distributed) c["ranks"] = ranks_json(ranks[k]);
      j["por"][o.pors[k]] = c;
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("graph: %s\nhash: %s\n%-20s", p.name().c_str(), p.hash_hex().c_str(), "por");
    for (std::size_t k = 0; k < results.size(); ++k) std::printf(" %14s", o.pors[k].c_str());
    std::printf("\n");
    for (const auto& row : rows) {
      std::printf("%-20s", row.key);
      for (const auto& r : results) std::printf(" %14llu", static_cast<unsigned long long>(row.get(r)));
      std::printf("\n");
    }
    std::printf("%-20s", "seconds");
    for (const auto& r : results) std::printf(" %14.3f", r.seconds);
    std::printf("\n%-20s", "complete");
    for (const auto& r : results) std::printf(" %14s", r.complete ? "yes" : ("no: " + r.stopped_by).c_str());
    std::printf("\n");
    for (std::size_t k = 0; k < results.size(); ++k)
      if (!results[k].complete)
        std::printf("INCOMPLETE: stopped by %s (por %s)\n", results[k].stopped_by.c_str(), o.pors[k].c_str());
  }
  return o.search.exit_code(complete ? kSuccess : kIncomplete);
}

}  // namespace

Command add_explore(CLI::App& app) {
  auto* sub = app.add_subcommand("explore", "search counters of each reduction side by side; the state graph with --dot");
  auto o = std::make_shared<ExploreCmd>();
  o->graph.add_to(*sub);
  o->search.add_to(*sub, false);
  o->search.add_distributed(*sub);
  sub->add_option("--por", o->pors, "the reductions to run, in order (the last one is drawn by --dot)")
      ->check(CLI::IsMember({"none", "stubborn", "rf"}))
      ->delimiter(',')
      ->capture_default_str();
  sub->add_flag("--json", o->json, "print the counters as JSON");
  sub->add_option("--dot", o->dot, "write the state graph explored by the last --por as Graphviz");
  sub->add_option("--dot-max-states", o->dot_max_states, "refuse --dot above this many states")->capture_default_str();
  return {sub, [o] { return run_explore(*o); }};
}

}  // namespace tfsem::cli
