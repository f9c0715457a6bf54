#include "semantics/path_condition.hpp"

#include "support/hash.hpp"

#include <algorithm>

namespace tfsem {

namespace {
bool term_before(const Literal& l, const Tensor& t) { return compare(l.term, t) < 0; }
}  // namespace

std::optional<bool> PathCondition::value_of(const Tensor& term) const {
  const auto it = std::lower_bound(literals_.begin(), literals_.end(), term, term_before);
  if (it == literals_.end() || it->term != term) return std::nullopt;
  return it->value;
}

void PathCondition::add(Literal l) {
  const auto it = std::lower_bound(literals_.begin(), literals_.end(), l.term, term_before);
  literals_.insert(it, std::move(l));
}

bool PathCondition::contradicts(const PathCondition& o) const {
  return std::any_of(literals_.begin(), literals_.end(), [&](const Literal& l) {
    const auto v = o.value_of(l.term);
    return v && *v != l.value;
  });
}

std::optional<PathCondition> PathCondition::conjoined(const PathCondition& o) const {
  if (contradicts(o)) return std::nullopt;
  auto out = *this;
  for (const auto& l : o)
    if (!out.value_of(l.term)) out.add(l);
  return out;
}

std::size_t PathCondition::hash() const {
  std::size_t h = 0x9a7;
  for (const auto& l : literals_) h = hash_combine(h, l.term.hash() * 2 + (l.value ? 1 : 0));
  return h;
}

std::string PathCondition::to_string() const {
  std::string out;
  for (const auto& l : literals_) out += (out.empty() ? "" : " and ") + l.term.to_string() + (l.value ? " is true" : " is false");
  return out;
}

}  // namespace tfsem
