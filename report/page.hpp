// A page a person reads in a browser (check --html, trace --html): one
// self-contained HTML file, with no network access and no external script,
// that draws the graph in the paper's conventions (solid tensor edges, dashed
// variable edges, dotted control edges, loop frames as clusters, races in
// red), lists a check's outcomes, races and fixes, and steps through each
// witness: the state of every edge (its contents in each context) and VarValue
// drawn on the graph at each step, the node that fires highlighted. The page's
// script and style are report/page.html; its data is one JSON document in it.
#pragma once

#include "semantics/semantics.hpp"
#include "semantics/session.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace tfsem::report {

// The witnesses a page steps through. Each holds its first state whole and
// each step as the slots and variables it changed, before and after, so that
// the page goes forward and back a step at the cost of its changes.
class PageWitnesses {
 public:
  // Past this many steps in all, a witness is listed without its states.
  static constexpr std::size_t kMaxSteps = 200'000;

  explicit PageWitnesses(const Semantics& sem) : sem_(sem), names_(sem.program(), sem.contexts()) {}

  // A witness named `title` starts in `s`.
  void begin(std::string title, const State& s);
  // Its next step fired `step`, leading to `s`.
  void step(const Step& step, const State& s);
  // The witness of `schedule`, replayed from the initial state; returns its index.
  std::size_t replay(std::string title, const Schedule& schedule);
  [[nodiscard]] const nlohmann::json& json() const { return witnesses_; }

 private:
  nlohmann::json slot(Slot s);
  const Semantics& sem_;
  ContextNames names_;
  State last_;
  std::size_t steps_ = 0;
  nlohmann::json witnesses_ = nlohmann::json::array();
};

// The graph as the page draws it: nodes (name, label, frame), edges (name,
// kind, src and dst, -1 for none), frames (name, kind, parent) and variables.
nlohmann::json page_graph(const Program& p);

// The page: `title`, the graph, a report (check_json's, or null for a trace)
// and the witnesses; each race of the report names its two witnesses by index
// ("witnesses"), and each outcome its one ("witness_index").
std::string page_html(const std::string& title, const Program& p, const nlohmann::json& report,
                      const PageWitnesses& witnesses);

}  // namespace tfsem::report
