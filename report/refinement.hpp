// The report of `tfsem refines A B` (explorer/refines.hpp): each graph's
// number of outcomes, what they are compared on, each outcome of B that A
// lacks with its witness, and the verdict.
#pragma once

#include "explorer/refines.hpp"

#include <string>

namespace tfsem::report {

struct RefinementReport {
  const Semantics &specification, &implementation;
  const std::string &specification_file, &implementation_file;
  const explorer::Refinement& refinement;
};

std::string refinement_text(const RefinementReport& r);

}  // namespace tfsem::report
