#include "report/refinement.hpp"

#include "report/forms.hpp"

#include <sstream>

namespace tfsem::report {

std::string refinement_text(const RefinementReport& report) {
  const auto& r = report.refinement;
  std::ostringstream out;
  out << "specification: " << report.specification.program().name() << " (" << report.specification_file << "), "
      << r.specification.outcomes.size() << " outcomes\n"
      << "implementation: " << report.implementation.program().name() << " (" << report.implementation_file << "), "
      << r.implementation.outcomes.size() << " outcomes\n"
      << "compared on:";
  for (const auto& f : r.fetches) out << " " << f;
  for (const auto& x : r.variables) out << " " << x;
  out << "\n";
  for (const auto* search : {&r.specification, &r.implementation})
    if (!search->complete) return out.str() + stopped_line(search->stopped_by) + verdict_line("incomplete");
  for (const auto& e : r.extra)
    out << "not in the specification: " << (e.shown.empty() ? "(nothing shared)" : e.shown) << " | witness "
        << schedule_to_string(report.implementation, e.witness) << "\n";
  out << verdict_line(r.refines() ? "refines" : "does not refine");
  return out.str();
}

}  // namespace tfsem::report
