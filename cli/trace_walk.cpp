#include "cli/trace_walk.hpp"

#include "semantics/diagnostic.hpp"

#include <algorithm>

namespace tfsem::cli {

namespace {

// Chooses the next step: from the schedule, at random, or the first enabled
// transition in topological order (the oldest context first).
std::optional<Step> next_step(const Semantics& sem, const State& s, const Schedule* schedule, std::size_t index,
                              std::optional<RandomScheduler>& random) {
  if (schedule) {
    if (index >= schedule->size()) return std::nullopt;
    const auto& step = (*schedule)[index];
    if (auto why = refuse_step(sem, s, step))
      throw InputError("T-SCHEDULE", "schedule", "step " + std::to_string(index + 1), "refused: " + *why);
    return step;
  }
  auto enabled = sem.enabled_transitions(s);
  if (enabled.empty()) return std::nullopt;
  std::vector<std::size_t> position(sem.program().nodes().size());
  const auto& order = sem.program().topological_order();
  for (std::size_t i = 0; i < order.size(); ++i) position[order[i].index()] = i;
  std::stable_sort(enabled.begin(), enabled.end(),
                   [&](Transition a, Transition b) { return position[a.node.index()] < position[b.node.index()]; });
  if (!random) return Step{enabled.front().node, enabled.front().context, 0};
  const auto t = enabled[random->below(enabled.size())];
  return Step{t.node, t.context, static_cast<std::uint32_t>(random->below(sem.fire(s, t).size()))};
}

// The frame of a context in s beyond the bounds, if any.
std::optional<FrameId> beyond(const Semantics& sem, const State& s, const Bounds& bounds) {
  for (const auto& entry : s.in_transit)
    if (const auto c = entry.first.context; sem.contexts().beyond(c, bounds)) return sem.contexts()[c].frame;
  return std::nullopt;
}

}  // namespace

bool walk(const Walk& w, report::TraceWriter& writer) {
  std::optional<RandomScheduler> random;
  if (w.seed) random.emplace(*w.seed);
  const auto& last = w.graphs.back()->program();
  writer.begin(last);
  State s = w.graphs.front()->initial();
  std::optional<FrameId> stopped;  // the loop or function a walk would take past its bound
  for (int r = 0; r < w.runs && !stopped; ++r) {
    const auto& sem = *w.graphs[std::min(static_cast<std::size_t>(r), w.graphs.size() - 1)];
    if (r > 0) s = sem.next_run(s);  // S-SESSION: VarValue persists, whichever run's graph comes next
    if (w.graphs.size() > 1) writer.graph(sem, r + 1);
    const Schedule* schedule = nullptr;
    if (w.schedules) {
      if (static_cast<std::size_t>(r) >= w.schedules->size())
        throw InputError("T-SCHEDULE", "schedule", "", "the schedule has no steps for run " + std::to_string(r + 1));
      schedule = &(*w.schedules)[r];
    }
    writer.run(sem, r + 1, s);
    report::RunEnd end;
    while (auto step = next_step(sem, s, schedule, end.steps, random)) {
      auto next = std::move(sem.fire(s, step->transition())[step->choice]);
      if (!schedule && (stopped = beyond(sem, next, w.bounds))) break;
      s = std::move(next);
      end.taken.push_back(*step);
      ++end.steps;
      writer.step(sem, end.steps, *step, s);
    }
    end.terminal = sem.terminal(s);
    end.beyond = stopped;
    end.bounds = w.bounds;
    writer.end_run(sem, s, end);
  }
  writer.end(last, s);
  return stopped.has_value();
}

}  // namespace tfsem::cli
