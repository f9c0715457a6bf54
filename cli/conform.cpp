#include "cli/conform.hpp"

#include "semantics/format/graph_json.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <sstream>

namespace tfsem::conform {

bool close(const Tensor& a, const Tensor& b, double tol) {
  if (a == b) return true;
  if (tol == 0 || a.kind() != Tensor::Kind::dense || b.kind() != Tensor::Kind::dense) return false;
  const auto &da = a.as_dense(), &db = b.as_dense();
  if (da.shape != db.shape || da.dtype() != db.dtype()) return false;
  return std::visit(
      [&](const auto& x) {
        using B = std::decay_t<decltype(x)>;
        const auto& y = std::get<B>(db.data);
        for (Eigen::Index i = 0; i < x.size(); ++i) {
          if constexpr (std::is_floating_point_v<typename B::Scalar>) {
            const double u = x[i], v = y[i];
            if (!(std::abs(u - v) <= tol * (1 + std::abs(v))) && !(std::isnan(u) && std::isnan(v))) return false;
          } else if (x[i] != y[i]) {
            return false;
          }
        }
        return true;
      },
      da.data);
}

namespace {

bool close(const Content& a, const Content& b, double tol) {
  if (std::holds_alternative<Tensor>(a) && std::holds_alternative<Tensor>(b))
    return conform::close(std::get<Tensor>(a), std::get<Tensor>(b), tol);
  return a == b;
}

using Outputs = std::vector<std::pair<std::string, Content>>;

bool same(const Outputs& oa, const std::vector<Tensor>& va, const Outputs& ob, const std::vector<Tensor>& vb, double tol) {
  if (oa.size() != ob.size() || va.size() != vb.size()) return false;
  for (std::size_t i = 0; i < oa.size(); ++i)
    if (oa[i].first != ob[i].first || !close(oa[i].second, ob[i].second, tol)) return false;
  for (std::size_t i = 0; i < va.size(); ++i)
    if (!conform::close(va[i], vb[i], tol)) return false;
  return true;
}

// A schedule of the whole run consistent with the graph and with the order
// in which the executor touched each variable; empty if there is none.
Schedule schedule_of(const Program& p, const fast_exec::RunResult& run) {
  const auto n = p.nodes().size();
  std::vector<std::vector<std::size_t>> after(n);
  std::vector<std::size_t> indegree(n, 0);
  auto edge = [&](std::size_t a, std::size_t b) {
    after[a].push_back(b);
    ++indegree[b];
  };
  for (const auto& e : p.edges())
    if (!e.is_input() && !e.is_output()) edge(e.src.index(), e.dst.index());
  for (const auto& order : run.accesses)
    for (std::size_t i = 1; i < order.size(); ++i) edge(order[i - 1].index(), order[i].index());
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t i = 0; i < n; ++i)
    if (indegree[i] == 0) ready.push(i);
  Schedule out;
  while (!ready.empty()) {
    const auto v = ready.top();
    ready.pop();
    out.push_back({NodeId(v), kRootContext, run.choices[v]});
    for (auto w : after[v])
      if (--indegree[w] == 0) ready.push(w);
  }
  if (out.size() != n) out.clear();
  return out;
}

std::string run_text(const Semantics& sem, const Outputs& o, const std::vector<Tensor>& v) {
  return explorer::outcome_text(sem, {o, v, {}, {}, 0, {}});
}

}  // namespace

Report conform(const std::shared_ptr<const Program>& program, const Options& o, const std::function<void(std::size_t)>& on_run) {
  Report r;
  r.semantics = std::make_shared<const Semantics>(program, tfsem::Options{o.exec.terms});
  const auto& sem = *r.semantics;
  r.graph = program->name();
  r.reference_hash = program->hash_hex();
  r.reference = explorer::explore(sem, o.explore);
  r.seen.assign(r.reference.outcomes.size(), 0);
  if (!r.reference.complete) return r;
  std::map<std::string, std::size_t> unexpected;
  fast_exec::Session session(program, o.exec);
  r.executor_hash = session.graph().program->hash_hex();
  const auto* stop = o.explore.limits.stop;
  for (std::size_t k = 1; k <= o.runs; ++k) {
    if (stop && stop->load()) {
      r.stopped_by = "interrupt";
      break;
    }
    session.reset();  // each run starts from the initial VarValue
    const auto run = session.run();
    const auto run_outputs = session.outputs(run);
    ++r.runs;
    if (on_run) on_run(k);
    const auto text = run_text(sem, run_outputs, run.var_value);
    const auto& outs = r.reference.outcomes;
    const auto match = std::find_if(outs.begin(), outs.end(), [&](const explorer::Outcome& ref) {
      return ref.stuck.empty() && same(ref.outputs, ref.var_value, run_outputs, run.var_value, o.tolerance);
    });
    const auto schedule = schedule_of(*program, run);
    if (match == outs.end()) {
      if (unexpected[text]++ == 0) r.failures.push_back({k, "outcome outside the reference set", text, schedule});
    } else {
      ++r.seen[static_cast<std::size_t>(match - outs.begin())];
    }
    // Trace validation: the recorded access order must replay to the same result.
    if (schedule.empty()) {
      r.failures.push_back({k, "the recorded access order contradicts the graph", text, {}});
      continue;
    }
    State s = sem.initial();
    const bool replayable = !replay(sem, s, schedule);
    ++r.replayed;
    if (!replayable || !same(outputs(*program, s), s.var_value, run_outputs, run.var_value, o.tolerance))
      r.failures.push_back({k,
                            "the recorded access order replays in the semantics to " +
                                (replayable ? run_text(sem, outputs(*program, s), s.var_value) : "a refused step"),
                            text, schedule});
  }
  r.unexpected.assign(unexpected.begin(), unexpected.end());
  return r;
}

std::string report_text(const Report& r, std::size_t max_failures) {
  const auto& sem = *r.semantics;
  std::ostringstream out;
  out << "graph: " << r.graph << "\nreference-hash: " << r.reference_hash << "\nexecutor-hash: " << r.executor_hash << "\n";
  if (!r.reference.complete) out << "INCOMPLETE: stopped by " << r.reference.stopped_by << " in the reference search\n";
  else if (!r.stopped_by.empty()) out << "INCOMPLETE: stopped by " << r.stopped_by << " after " << r.runs << " executor runs\n";
  out << "reference-outcomes: " << r.reference.outcomes.size() << (r.reference.complete ? "" : " (at least)")
      << "\nexecutor-runs: " << r.runs << "\n";
  for (std::size_t i = 0; i < r.reference.outcomes.size(); ++i)
    out << "outcome: " << explorer::outcome_text(sem, r.reference.outcomes[i]) << " | allowed | "
        << (r.seen[i] ? "seen " + std::to_string(r.seen[i]) : std::string("unseen")) << "\n";
  if (!r.reference.complete) {
    const auto& c = r.reference.counters;
    out << "reference-states-stored: " << c.states_stored << "\nreference-transitions: " << c.transitions
        << "\nreference-terminal-states: " << c.terminal_states << "\nverdict: incomplete\n";
    return out.str();
  }
  for (const auto& [text, count] : r.unexpected) out << "outcome: " << text << " | NOT ALLOWED | seen " << count << "\n";
  out << "traces-replayed: " << r.replayed << "\n";
  for (std::size_t i = 0; i < r.failures.size() && i < max_failures; ++i) {
    const auto& f = r.failures[i];
    out << "FAIL: run " << f.run << ": " << f.what << " | output " << f.outcome << " | schedule "
        << (f.schedule.empty() ? "(none)" : schedule_to_string(sem, f.schedule)) << "\n";
  }
  if (r.failures.size() > max_failures) out << "FAIL: ... and " << r.failures.size() - max_failures << " more\n";
  out << "verdict: " << (!r.complete() ? "incomplete" : r.conforms() ? "conforms" : "DOES NOT CONFORM") << "\n";
  return out.str();
}

std::string report_json(const Report& r) {
  const auto& sem = *r.semantics;
  using nlohmann::json;
  json outcomes = json::array(), unexpected = json::array(), failures = json::array();
  for (std::size_t i = 0; i < r.reference.outcomes.size(); ++i)
    outcomes.push_back({{"outcome", explorer::outcome_text(sem, r.reference.outcomes[i])}, {"seen", r.seen[i]}});
  for (const auto& [text, count] : r.unexpected) unexpected.push_back({{"outcome", text}, {"seen", count}});
  for (const auto& f : r.failures)
    failures.push_back({{"run", f.run}, {"what", f.what}, {"output", f.outcome}, {"schedule", schedule_to_string(sem, f.schedule)}});
  return json{{"graph", r.graph},
              {"reference_hash", r.reference_hash},
              {"executor_hash", r.executor_hash},
              {"complete", r.complete()},
              {"stopped_by", r.reference.complete ? r.stopped_by : r.reference.stopped_by},
              {"runs", r.runs},
              {"reference_outcomes", outcomes},
              {"not_allowed", unexpected},
              {"traces_replayed", r.replayed},
              {"failures", failures},
              {"verdict", !r.complete() ? "incomplete" : r.conforms() ? "conforms" : "does not conform"}}
      .dump(2);
}

}  // namespace tfsem::conform
