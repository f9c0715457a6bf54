#include "conformance/conform.hpp"

#include "semantics/unknown_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

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
        for (std::ptrdiff_t i = 0; i < x.size(); ++i) {
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

// The executor's context as the semantics names it.
ContextId context_id(const Semantics& sem, const fast_exec::ExecContext& c) {
  ContextId id = kRootContext;
  for (const auto& [frame, i] : c)
    id = sem.program().frame(frame).kind == Frame::Kind::function ? sem.contexts().call(id, frame, i)
                                                                  : sem.contexts().child(id, frame, i);
  return id;
}

// Whether t has a DEAD input: then it touches no variable (C-DEAD), and the
// executor records no access.
bool fires_dead(const Semantics& sem, const State& s, Transition t) {
  const auto& node = sem.program().node(t.node);
  for (const auto* edges : {&node.in, &node.control_in})
    for (auto d : *edges) {
      const auto slot = sem.in_slot(d, t.context);
      if (s.holds(slot.edge, slot.context) == Holds::dead) return true;
    }
  return false;
}

// A run's behaviour in the semantics, rebuilt from what the executor recorded.
struct Replayed {
  Schedule schedule;
  State state;
  bool consistent = true;  // every recorded access was taken, in its variable's order
};

// From the initial state, fires enabled transitions until none is: one that
// touches no variable, or the next access of its variable in the executor's
// order; a relation takes the result the executor picked, and a Merge the
// input it forwarded (waiting until that input is live). Transitions that touch
// no variable commute with the others, so any order of them will do.
Replayed replay_run(const Semantics& sem, const fast_exec::RunResult& run) {
  const auto& p = sem.program();
  std::vector<std::vector<Transition>> order(run.accesses.size());
  for (std::size_t x = 0; x < order.size(); ++x)
    for (const auto& f : run.accesses[x]) order[x].push_back({f.node, context_id(sem, f.context)});
  std::vector<std::size_t> next(order.size(), 0);
  std::map<Transition, std::uint32_t> picks;
  for (const auto& f : run.choices) picks[{f.node, context_id(sem, f.context)}] = f.choice;
  Replayed r{{}, sem.initial(), true};
  for (;;) {
    std::optional<Step> step;
    for (const auto t : sem.enabled_transitions(r.state)) {
      const auto a = sem.access(t.node);
      if (a.kind != Access::Kind::none && !fires_dead(sem, r.state, t)) {
        const auto& o = order[a.var.index()];
        if (next[a.var.index()] >= o.size() || o[next[a.var.index()]] != t) continue;
      }
      const auto pick = picks.find(t);
      std::uint32_t choice = pick == picks.end() ? 0 : pick->second;
      if (const auto& node = p.node(t.node); node.op.kind == OpKind::merge && pick != picks.end()) {
        // Successors come one per live input, in port order.
        auto live = [&](std::size_t port) {
          const auto s = sem.in_slot(node.in[port], t.context);
          return r.state.holds(s.edge, s.context) == Holds::live;
        };
        if (!live(choice)) continue;
        std::uint32_t k = 0;
        for (std::uint32_t i = 0; i < choice; ++i) k += live(i) ? 1 : 0;
        choice = k;
      }
      step = Step{t.node, t.context, choice};
      break;
    }
    if (!step) break;
    if (const auto a = sem.access(step->node); a.kind != Access::Kind::none && !fires_dead(sem, r.state, step->transition()))
      ++next[a.var.index()];
    auto successors = sem.fire(r.state, step->transition());
    if (step->choice >= successors.size()) {
      r.consistent = false;
      break;
    }
    r.state = std::move(successors[step->choice]);
    r.schedule.push_back(*step);
  }
  for (std::size_t x = 0; x < order.size(); ++x) r.consistent = r.consistent && next[x] == order[x].size();
  return r;
}

// A run's outcome, as the reference's are written; a stuck run (S-STUCK) says so.
std::string run_text(const Semantics& sem, const Outputs& o, const std::vector<Tensor>& v, bool stuck) {
  return explorer::outcome_text(sem, {o, v, {}, {}, 0, {}, {}}) + (stuck ? "; stuck" : "");
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
  // An executor computes concrete values: it cannot take a branch on a term (C-SWITCH-SYMBOLIC).
  if (const auto unknown = unknown_inputs(sem); !unknown.empty()) {
    r.stopped_by = "Switch predicates that depend on unknown " + unknown_inputs_text(unknown) + ", which an executor cannot decide";
    return r;
  }
  std::map<std::string, std::size_t> unexpected;
  auto exec = o.exec;
  exec.record_merges = true;
  exec.record_accesses = true;
  fast_exec::Executor executor(program, exec);
  r.executor_hash = executor.graph().program->hash_hex();
  const auto* stop = o.explore.limits.stop;
  for (std::size_t k = 1; k <= o.runs; ++k) {
    if (stop && stop->stopped()) {
      r.stopped_by = stop->reason_text();
      break;
    }
    executor.reset();  // each run starts from the initial VarValue
    const auto run = executor.run();
    if (run.halt) {  // X-HALT: no outcome to compare
      r.stopped_by = "run " + std::to_string(k) + " halted: " + fast_exec::halt_text(sem, *run.halt);
      break;
    }
    const auto run_outputs = executor.outputs(run);
    ++r.runs;
    if (on_run) on_run(k);
    const auto text = run_text(sem, run_outputs, run.var_value, run.stuck);
    const auto& outs = r.reference.outcomes;
    const auto match = std::find_if(outs.begin(), outs.end(), [&](const explorer::Outcome& ref) {
      return ref.stuck.empty() != run.stuck && same(ref.outputs, ref.var_value, run_outputs, run.var_value, o.tolerance);
    });
    const auto replayed = replay_run(sem, run);
    if (match == outs.end()) {
      if (unexpected[text]++ == 0) r.failures.push_back({k, "outcome outside the reference set", text, replayed.schedule});
    } else {
      ++r.seen[static_cast<std::size_t>(match - outs.begin())];
    }
    // Trace validation: the recorded access order must replay to the same result.
    if (!replayed.consistent) {
      r.failures.push_back({k, "the recorded access order contradicts the graph", text, replayed.schedule});
      continue;
    }
    ++r.replayed;
    const auto& s = replayed.state;
    const bool stuck = !sem.stuck(s).empty();
    if (stuck != run.stuck || !same(outputs(*program, s), s.var_value, run_outputs, run.var_value, o.tolerance))
      r.failures.push_back({k, "the recorded access order replays in the semantics to " + run_text(sem, outputs(*program, s), s.var_value, stuck),
                            text, replayed.schedule});
  }
  r.unexpected.assign(unexpected.begin(), unexpected.end());
  return r;
}

}  // namespace tfsem::conform
