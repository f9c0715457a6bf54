#include "semantics/diagnostic.hpp"

namespace tfsem {

std::string Diagnostic::to_string() const {
  std::string out;
  if (!where.empty()) out += where + ": ";
  if (!subject.empty()) out += subject + ": ";
  out += message;
  if (!rule.empty()) out += " [" + rule + "]";
  return out;
}

namespace {
std::string join(const std::vector<Diagnostic>& d) {
  std::string out;
  for (const auto& x : d) out += (out.empty() ? "" : "\n") + x.to_string();
  return out;
}
}  // namespace

InputError::InputError(std::vector<Diagnostic> diags) : std::runtime_error(join(diags)), diags_(std::move(diags)) {}

InputError::InputError(std::string rule, std::string where, std::string subject, std::string message)
    : InputError(std::vector<Diagnostic>{{std::move(rule), std::move(where), std::move(subject), std::move(message)}}) {}

}  // namespace tfsem
