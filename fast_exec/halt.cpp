// X-HALT's reason as a sentence (Executor's RunResult::halt).
#include "fast_exec/executor.hpp"

#include "semantics/unknown_inputs.hpp"

namespace tfsem::fast_exec {

std::string halt_text(const Semantics& sem, const Halt& h) {
  const auto& p = sem.program();
  std::string where;
  for (const auto& [frame, i] : h.context) where += (where.empty() ? "" : ",") + p.frame(frame).name + ":" + std::to_string(i);
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
           " is made on a branch of a Switch whose predicate was an error, which goes down both branches "
           "(C-SWITCH), within a call of the same function made so too";
  const auto loop = h.context.empty() ? std::string() : "loop '" + p.frame(h.context.back().first).name + "' ";
  if (h.why == Halt::Why::iteration_limit)
    return loop + "reached --max-iterations: NextIteration " + node + " would start iteration " + h.value;
  return loop + "would not end while its predicate stays an error: Exit " + node + " got " + h.value +
         " after it had delivered a value (C-EXIT-TWICE), in an iteration where a Switch's predicate was an error, "
         "which goes down both branches (C-SWITCH), so that the iteration starts the next";
}

}  // namespace tfsem::fast_exec
