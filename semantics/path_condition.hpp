// Path conditions (S-PATH): what a behaviour has assumed of the values it
// could not compute. A Switch whose predicate is a term (an unfed
// placeholder's symbol, an uninterpreted op's result) takes each branch under
// the assumption that the term is true, or false (C-SWITCH-SYMBOLIC); the
// path condition is the set of those literals, part of the state. Terms are
// hash-consed, so the same term met by two Switches is one term, and a
// second Switch on it takes only the branch its literal allows.
#pragma once

#include "semantics/tensor.hpp"

#include <optional>
#include <string>
#include <vector>

namespace tfsem {

// A predicate's term with the truth value a behaviour took for it.
struct Literal {
  Tensor term;
  bool value = false;
  friend bool operator==(const Literal&, const Literal&) = default;
};

// A set of literals, at most one per term, in the structural order of their
// terms (the same in every process), so that equal sets are equal vectors.
class PathCondition {
 public:
  [[nodiscard]] bool empty() const { return literals_.empty(); }
  [[nodiscard]] std::size_t size() const { return literals_.size(); }
  [[nodiscard]] auto begin() const { return literals_.begin(); }
  [[nodiscard]] auto end() const { return literals_.end(); }

  // The value the condition gives `term`, if it has a literal for it.
  [[nodiscard]] std::optional<bool> value_of(const Tensor& term) const;
  // Adds l; precondition: no literal for l.term yet.
  void add(Literal l);
  // Whether some term has one value here and the other in `o`: no
  // assignment of the terms satisfies both.
  [[nodiscard]] bool contradicts(const PathCondition& o) const;
  // The literals of both, when they do not contradict each other: what a
  // behaviour assumed in one run and then in the next (S-SESSION).
  [[nodiscard]] std::optional<PathCondition> conjoined(const PathCondition& o) const;

  friend bool operator==(const PathCondition&, const PathCondition&) = default;
  [[nodiscard]] std::size_t hash() const;
  // "Less(x,3) is true and P is false"; "" when empty.
  [[nodiscard]] std::string to_string() const;

 private:
  std::vector<Literal> literals_;
};

}  // namespace tfsem

template <>
struct std::hash<tfsem::PathCondition> {
  std::size_t operator()(const tfsem::PathCondition& p) const noexcept { return p.hash(); }
};
