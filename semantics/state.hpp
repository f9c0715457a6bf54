// States (section 3.2.1): "a mapping VarValue from Vars to Tensors" and "a
// mapping InTransit from the edges of the TF graph to contents". With control
// flow (section 4) InTransit maps an edge in an execution context to its
// contents, and which nodes have fired in which contexts becomes part of the
// state: "each node fires at most once in each execution context" (C-STATE).
// A behaviour that branched on a term carries its path condition (S-PATH).
#pragma once

#include "semantics/content.hpp"
#include "semantics/context.hpp"
#include "semantics/path_condition.hpp"
#include "semantics/tensor.hpp"

#include <boost/container/flat_map.hpp>
#include <boost/container/flat_set.hpp>

#include <string>
#include <unordered_map>
#include <vector>

namespace tfsem {

class Program;

// S-STATE, C-STATE: VarValue, InTransit, and the fired records; S-PATH: the path condition.
struct State {
  std::vector<Tensor> var_value;                                 // VarValue, indexed by VarId
  boost::container::flat_map<Slot, Content> in_transit;         // InTransit; EMPTY slots are absent
  boost::container::flat_set<Transition> fired;                 // (n, c): n has fired in context c
  // C-FINISHED: how many fired records left the state with their contexts.
  // With the records it keeps, it counts the firings that led to the state.
  std::uint32_t retired = 0;
  PathCondition path;  // S-PATH: the terms branched on, with the value taken (empty: none)

  // InTransit(e) in context c: EMPTY when nothing is there.
  [[nodiscard]] const Content& at(EdgeId e, ContextId c = kRootContext) const;
  [[nodiscard]] Holds holds(EdgeId e, ContextId c) const { return tfsem::holds(at(e, c)); }
  // Sets InTransit(e) in context c; EMPTY removes the slot.
  void put(Slot s, Content c);
  [[nodiscard]] bool has_fired(NodeId n, ContextId c) const { return fired.contains({n, c}); }

  friend bool operator==(const State&, const State&) = default;
  [[nodiscard]] std::size_t hash() const;
};

std::string content_to_string(const Program& p, const Content& c, std::size_t max_elements = 64);
// "while:3" or "outer:1,inner:2"; "" for the root context.
std::string context_to_string(const Program& p, const Contexts& contexts, ContextId c);
// context_to_string's names, each built once from its parent's, so that
// naming many steps costs the length of the names, not their depth times it.
class ContextNames {
 public:
  ContextNames(const Program& p, const Contexts& contexts) : program_(p), contexts_(contexts) { names_[kRootContext.value]; }
  const std::string& operator()(ContextId c);
  // "node" or "node[while:3]", as transition_to_string writes it.
  std::string transition(Transition t);

 private:
  const Program& program_;
  const Contexts& contexts_;
  std::unordered_map<std::uint32_t, std::string> names_;  // by ContextId::value
};
// Which bound a context of frame f goes past: "max-iterations N in loop 'x'"
// or "max-depth N in function 'f'".
std::string bound_to_string(const Program& p, FrameId f, const Bounds& b);
// "node", or "node[while:3]" in a loop's context.
std::string transition_to_string(const Program& p, const Contexts& contexts, Transition t);
// "edge", or "edge[while:3]".
std::string slot_to_string(const Program& p, const Contexts& contexts, Slot s);
// The state as the paper's figures show it: VarValue, then every non-EMPTY
// edge, with its context when it is in a loop, then the path condition if any.
std::string state_to_string(const Program& p, const Contexts& contexts, const State& s, const std::string& indent = "  ",
                            std::size_t max_elements = 64);

}  // namespace tfsem

template <>
struct std::hash<tfsem::State> {
  std::size_t operator()(const tfsem::State& s) const noexcept { return s.hash(); }
};
