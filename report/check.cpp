#include "report/check.hpp"

#include "formats/json/graph_json.hpp"
#include "report/forms.hpp"
#include "report/race_groups.hpp"

#include <set>
#include <sstream>

namespace tfsem::report {

namespace {

// Under --por=none every interleaving is explored; under a reduction, only
// the behaviours it keeps.
const char* paths_key(const explorer::Result& r) { return r.por == explorer::Por::none ? "interleavings" : "behaviours"; }

// Incomplete too when an uninterpreted stateful op takes a variable (I-STATEFUL-VAR).
const char* verdict_of(const explorer::Result& r, const Program& p) {
  return verdict(r.complete && unassumable(p).empty(), r.violated(), explorer::one_per_path(r.outcomes));
}

std::string violation_text(const Semantics& sem, const Violation& v) {
  const auto& p = sem.program();
  const auto at = transition_to_string(p, sem.contexts(), v.at);
  return std::string(violation_name(v.kind)) + " | " + at + " | " +
         (v.kind == Violation::Kind::merge_two_live
              ? "Merge " + at + " took one live input, and input '" + p.edge(v.edge).name() + "' holds another"
              : "Exit " + at + " holds a live value after its loop delivered one");
}

// The nodes whose steps decide an outcome: those of a race, and those where a
// violation occurs.
std::set<NodeId> deciding_nodes(const explorer::Result& r) {
  std::set<NodeId> nodes;
  for (const auto& race : r.races) nodes.insert({race.first.node, race.second.node});
  for (const auto& o : r.outcomes)
    for (const auto& v : o.violations) nodes.insert(v.at.node);
  return nodes;
}

}  // namespace

std::string check_text(const CheckReport& report, const CheckTextForm& form) {
  const auto& sem = report.semantics;
  const auto& r = report.result;
  const auto& fixes = report.fixes;
  const auto& p = sem.program();
  std::ostringstream out;
  out << "graph: " << p.name() << "\nhash: " << p.hash_hex() << "\npor: " << explorer::por_name(r.por) << "\n";
  if (!r.complete) out << stopped_line(r.stopped_by);
  if (!fixes.stopped_by.empty()) out << stopped_line(fixes.stopped_by, " in the search for fixes");
  out << unassumable_lines(unassumable(p));  // I-STATEFUL-VAR
  out << count_line("outcomes", r.outcomes.size(), r.complete);
  const auto deciding = deciding_nodes(r);
  const auto decides = [&deciding](const Step& s) { return s.choice != 0 || deciding.contains(s.node); };
  const StopPoll poll(report.stop);
  for (const auto& o : r.outcomes) {
    poll.check();
    SharedTerms terms;
    const auto text = terms([&] { return explorer::outcome_text(sem, o); });
    out << terms.lines() << "outcome: " << text << " | " << paths_key(r) << " " << o.paths << "\n  witness: "
        << witness_text(sem, o.witness, form.witnesses, decides) << "\n";
    for (const auto& v : o.violations) out << "violation: " << violation_text(sem, v) << "\n";
  }
  out << verdict_line(verdict_of(r, p), uninterpreted_stateful(p));  // I-STATEFUL
  for (const auto& g : race_groups(r.races)) {
    poll.check();
    const auto where = contexts_summary(sem, r.races, g), when = path_summary(r.races, g);
    out << "race: " << p.node(g.first).name() << " " << p.node(g.second).name() << " | variable " << p.variable(g.var).name
        << " | " << harm_summary(g) << (where.empty() ? "" : " | " + where) << (when.empty() ? "" : " | " + when)
        << (g.races.size() > 1 ? " | " + std::to_string(g.races.size()) + " instances" : "") << "\n";
    if (!form.race_instances) continue;
    for (auto k : g.races) {
      poll.check();
      const auto& race = r.races[k];
      const auto racing = [&race](const Step& s) { return s.transition() == race.first || s.transition() == race.second; };
      const auto a = transition_to_string(p, sem.contexts(), race.first), b = transition_to_string(p, sem.contexts(), race.second);
      out << "  instance: " << a << " " << b << " | " << (race.harmful ? "harmful" : "benign") << "\n    " << a << " first: "
          << witness_text(sem, race.first_then_second, form.witnesses, racing) << "\n    " << b << " first: "
          << witness_text(sem, race.second_then_first, form.witnesses, racing) << "\n";
    }
  }
  for (const auto& f : fixes.found) {
    SharedTerms terms;
    const auto text = terms([&] { return explorer::fix_outcomes_text(sem, f); });
    out << terms.lines() << fix_line(explorer::fix_text(p, f), text);
  }
  if (fixes.searched && r.complete && (!r.deterministic() || r.violated()) && fixes.found.empty() && fixes.stopped_by.empty())
    out << no_fix_line();
  out << counters_text(r.counters, r.seconds) << memory_line(r.memory_bytes, report.max_memory) << ranks_text(report.ranks);
  return out.str();
}

nlohmann::json check_json(const CheckReport& report) {
  using nlohmann::json;
  const auto& sem = report.semantics;
  const auto& r = report.result;
  const auto& p = sem.program();
  auto name = [&](Transition t) { return transition_to_string(p, sem.contexts(), t); };
  json outcomes = json::array(), races = json::array();
  const StopPoll poll(report.stop);
  for (const auto& o : r.outcomes) {
    poll.check();
    json stuck = json::array(), violations = json::array();
    for (const auto& s : o.stuck) stuck.push_back(name(s.transition));
    for (const auto& v : o.violations)
      violations.push_back({{"kind", violation_name(v.kind)}, {"at", name(v.at)}, {"edge", p.edge(v.edge).name()}});
    SharedTerms terms;
    json outcome = terms([&] {
      json j{{"outputs", format::outputs_to_json(p, o.outputs)}, {"VarValue", format::var_value_to_json(p, o.var_value)},
             {"stuck", stuck}, {"violations", violations}, {paths_key(r), o.paths},
             {"witness", schedule_to_string(sem, o.witness)}};
      if (!o.path.empty()) j["path_condition"] = path_condition_json(o.path);
      return j;
    });
    terms.add_to(outcome);
    outcomes.push_back(std::move(outcome));
  }
  for (const auto& race : r.races) {
    poll.check();
    json j{{"nodes", {name(race.first), name(race.second)}},
           {"variable", p.variable(race.var).name}, {"harmful", race.harmful},
           {"first_then_second", schedule_to_string(sem, race.first_then_second)},
           {"second_then_first", schedule_to_string(sem, race.second_then_first)}};
    if (!race.path.empty()) j["path_condition"] = path_condition_json(race.path);
    races.push_back(std::move(j));
  }
  json groups = json::array();
  for (const auto& g : race_groups(r.races))
    groups.push_back({{"nodes", {p.node(g.first).name(), p.node(g.second).name()}},
                      {"variable", p.variable(g.var).name},
                      {"contexts", contexts_summary(sem, r.races, g)},
                      {"races", g.races},
                      {"harmful", g.harmful}});
  json fix_list = json::array();
  for (const auto& f : report.fixes.found) {
    json edges = json::array(), loops = json::array(), atomics = json::array(), barriers = json::array();
    for (const auto& [a, b] : f.control_edges) edges.push_back({p.node(a).name(), p.node(b).name()});
    for (auto loop : f.sequential_loops) loops.push_back(p.frame(loop).name);
    for (auto w : f.atomic_updates) atomics.push_back(p.node(w).name());
    for (auto x : f.barriers) barriers.push_back(p.variable(x).name);
    SharedTerms terms;
    json fix = {{"control_edges", edges}, {"sequential_loops", loops}, {"atomic_updates", atomics}, {"barriers", barriers},
                {"outcome", terms([&] { return explorer::fix_outcomes_text(sem, f); })}};
    terms.add_to(fix);
    fix_list.push_back(std::move(fix));
  }
  json out = {{"graph", p.name()},
              {"hash", p.hash_hex()},
              {"por", explorer::por_name(r.por)},
              {"complete", r.complete},
              {"stopped_by", r.stopped_by},
              {"outcomes", outcomes},
              {"verdict", verdict_of(r, p)},
              {"races", races},
              {"race_groups", groups},
              {"fixes", fix_list},
              {"fixes_complete", report.fixes.stopped_by.empty()},
              {"counters", counters_json(r.counters)},
              {"seconds", r.seconds},
              {"memory_bytes", r.memory_bytes},
              {"max_memory", max_memory_json(report.max_memory)}};
  if (!report.fixes.stopped_by.empty()) out["fixes_stopped_by"] = report.fixes.stopped_by;
  if (const auto ops = unassumable(p); !ops.empty()) out["unassumable"] = ops;  // I-STATEFUL-VAR
  else if (r.complete) add_assumptions(out, uninterpreted_stateful(p));  // I-STATEFUL
  if (!report.ranks.empty()) out["ranks"] = ranks_json(report.ranks);
  return out;
}

}  // namespace tfsem::report
