// User-facing problems with their place: a rule id, a JSON path, a node or edge.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace tfsem {

struct Diagnostic {
  std::string rule;     // a stable id from specs/semantics.md, e.g. "G-ARITY"
  std::string where;    // a JSON path such as "/nodes/3", or "" when none applies
  std::string subject;  // "node 'w'", "edge 'e1'", "variable 'x'", or ""
  std::string message;
  [[nodiscard]] std::string to_string() const;
};

// Bad input: the graph, a feed, a schedule. Carries every problem found.
class InputError : public std::runtime_error {
 public:
  explicit InputError(std::vector<Diagnostic> diags);
  InputError(std::string rule, std::string where, std::string subject, std::string message);
  [[nodiscard]] const std::vector<Diagnostic>& diagnostics() const { return diags_; }

 private:
  std::vector<Diagnostic> diags_;
};

}  // namespace tfsem
