// Text of symbolic values that writes each shared subterm once, so that the
// text grows with the number of distinct subterms, not with the size of the
// tree: `F(F(X,X),F(X,X))` is `F(%1,%1)` with `%1 = F(X,X)`.
#pragma once

#include "semantics/tensor.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace tfsem {

// Names for the subterms shared by a group of values (an outcome's outputs
// and VarValue, a state): a term with arguments that is an argument of
// another term and is referred to more than once in the group (as an
// argument, or as one of the values) is named %1, %2, ... in the order its
// definition is written (arguments before the terms applied to them), and
// written as its name wherever it occurs. A value that the group holds twice
// and that is no argument is written twice (`y=Add(B,D); x=Add(B,D)`), and a
// group that shares no subterm keeps its flat text. The names depend on the
// values' structure alone, never on addresses: the same values get the same
// text in every process.
class TermNames {
 public:
  struct Definition {
    std::string name;  // "%1"
    std::string text;  // "F(X,X)"
  };

  // Counts the references t's DAG makes to each of its subterms (each
  // distinct subterm's arguments counted once), and one to t, as a value.
  void count(const Tensor& t);
  // t's text; the definitions it needs are added to definitions(). The terms
  // named are those counted more than once, or, when nothing was counted,
  // those t alone refers to more than once.
  std::string text(const Tensor& t, std::size_t max_elements = 64);
  [[nodiscard]] const std::vector<Definition>& definitions() const { return definitions_; }

  // While a Scope is open, Tensor::to_string on this thread counts the term
  // (and returns no text), or writes it with the scope's table and leaves its
  // definitions there, for the caller to write once for the group.
  class Scope {
   public:
    enum class Pass : std::uint8_t { count, write };
    explicit Scope(TermNames& names, Pass pass = Pass::write);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    TermNames* previous_;
    Pass previous_pass_;
  };
  // The table of the innermost Scope open on this thread, or null.
  static TermNames* current();
  // Writes a group: `write` (writing its values with Tensor::to_string) runs
  // twice, counting its terms, then writing them; its second result is returned.
  template <class F>
  auto group(F&& write) {
    {
      const Scope counting(*this, Scope::Pass::count);
      write();
    }
    const Scope writing(*this);
    return write();
  }
  // What to_string does with t in the current scope: count it or write it.
  std::string in_scope(const Tensor& t, std::size_t max_elements);

 private:
  std::string define(const Tensor& t, std::string text);
  [[nodiscard]] bool shared(const Tensor& t) const;

  struct Uses {
    std::uint32_t references = 0;
    bool argument = false;  // whether one of them is as an argument
  };
  std::unordered_map<const void*, Uses> uses_;  // by a counted subterm's identity
  std::vector<Tensor> counted_;                         // the values counted, keeping their subterms' identities valid
  std::unordered_map<const void*, std::size_t> named_;  // a named term's identity: its index in definitions_
  std::vector<Definition> definitions_;
  std::vector<Tensor> keep_;  // the named terms, alive while their identities are keys
};

}  // namespace tfsem
