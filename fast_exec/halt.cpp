// X-HALT's reason as a sentence (Executor's RunResult::halt).
#include "fast_exec/executor.hpp"

#include "semantics/unknown_inputs.hpp"

namespace tfsem::fast_exec {

namespace {

// The context's frames and iterations, the outermost and innermost few where it is deep.
std::string context_text(const Program& p, const Halt& h) {
  constexpr std::size_t kEnds = 3;
  const auto& c = h.context;
  std::string where;
  const auto add = [&](std::size_t from, std::size_t to) {
    for (auto k = from; k < to; ++k) where += (where.empty() ? "" : ",") + p.frame(c[k].first).name + ":" + std::to_string(c[k].second);
  };
  if (c.size() <= 3 * kEnds) {
    add(0, c.size());
    return where;
  }
  add(0, kEnds);
  where += ",... " + std::to_string(c.size() - 2 * kEnds) + " more ...";
  add(c.size() - kEnds, c.size());
  return where;
}

}  // namespace

std::string halt_text(const Semantics& sem, const Halt& h) {
  const auto& p = sem.program();
  const auto where = context_text(p, h);
  const auto node = "'" + std::string(p.node(h.node).name()) + "'" + (where.empty() ? "" : " in context " + where);
  if (h.why == Halt::Why::term_predicate) {
    const NodeId switches[] = {h.node};
    const auto unknown = unknown_inputs(sem, switches);
    return "Switch " + node + " got the predicate " + h.value +
           ", a term: a run takes one branch, and which one is the path condition's (C-SWITCH-SYMBOLIC)" +
           (unknown.empty() ? "" : "; it depends on unknown " + unknown_inputs_text(unknown)) +
           "; tfsem check explores every branch";
  }
  if (h.why == Halt::Why::depth_limit) return "Call " + node + " would make a call " + h.value + " calls deep, past --max-depth";
  if (h.why == Halt::Why::endless_recursion)
    return "the recursion would not end while its predicate stays an error: Call " + node +
           " is made because a Switch's predicate was an error, which goes down both branches (C-SWITCH), within "
           "a call of the same function made so too";
  const auto loop = h.context.empty() ? std::string() : "loop '" + p.frame(h.context.back().first).name + "' ";
  if (h.why == Halt::Why::iteration_limit)
    return loop + "reached --max-iterations: NextIteration " + node + " would start iteration " + h.value;
  return loop + "would not end while its predicate stays an error: Exit " + node + " got " + h.value +
         " after it had delivered a value (C-EXIT-TWICE), in an iteration where a Switch's predicate was an error, "
         "which goes down both branches (C-SWITCH), so that the iteration starts the next";
}

}  // namespace tfsem::fast_exec
