#include "explorer/result.hpp"

namespace tfsem::explorer {

Outcome outcome_of(const Semantics& sem, const State& terminal) {
  return {outputs(sem.program(), terminal), terminal.var_value, sem.stuck(terminal), sem.violations(terminal), 0, {}, terminal.path};
}

std::string outcome_text(const Semantics& sem, const Outcome& o) {
  const auto& p = sem.program();
  std::string out;
  for (const auto& [fetch, c] : o.outputs) out += (out.empty() ? "" : "; ") + fetch + "=" + content_to_string(p, c);
  for (std::size_t x = 0; x < o.var_value.size(); ++x)
    out += (out.empty() ? "" : "; ") + p.variable(VarId(x)).name + "=" + o.var_value[x].to_string();
  if (!o.stuck.empty()) {
    out += "; stuck=";
    for (std::size_t i = 0; i < o.stuck.size(); ++i)
      out += (i ? "," : "") + transition_to_string(p, sem.contexts(), o.stuck[i].transition);
  }
  if (!o.violations.empty()) {
    out += "; violation=";
    for (std::size_t i = 0; i < o.violations.size(); ++i)
      out += (i ? "," : "") + std::string(violation_name(o.violations[i].kind)) + ":" +
             transition_to_string(p, sem.contexts(), o.violations[i].at);
  }
  return o.path.empty() ? out : "when " + o.path.to_string() + ": " + out;
}

}  // namespace tfsem::explorer
