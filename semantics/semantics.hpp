// Steps (section 3.2.1): "each change of state in the behavior is caused by the
// execution (i.e., the firing) of exactly one node in the graph."
//
// Glossary: s is the state before a step and s' the one after; n a node; d an
// incoming edge, e an outgoing edge; x a variable; v, w tensors.
// Every rule carries the id it has in specs/semantics.md.
#pragma once

#include "semantics/program.hpp"
#include "semantics/state.hpp"

#include <boost/container/small_vector.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tfsem {

struct Options {
  TermOptions terms{};  // normalize symbolic terms modulo the declared laws
};

// Why a node is not enabled: one incoming edge that is EMPTY.
struct Blocker {
  EdgeId edge;
  std::string reason;
};

// A node that never fired in a terminal state, with what it waits for.
struct StuckNode {
  NodeId node;
  std::vector<Blocker> waiting_on;
};

// The independence data the explorer reads: which variable a node accesses.
struct Access {
  enum class Kind : std::uint8_t { none, read, update };
  Kind kind = Kind::none;
  VarId var{};
};

// Every s' a firing can lead to: one, unless f is a relation (footnote 2).
using Successors = boost::container::small_vector<State, 1>;

class Semantics {
 public:
  explicit Semantics(std::shared_ptr<const Program> program, Options options = {});

  [[nodiscard]] const Program& program() const { return *program_; }
  [[nodiscard]] const std::shared_ptr<const Program>& program_ptr() const { return program_; }
  [[nodiscard]] const Options& options() const { return options_; }

  // S-INIT: input edges hold their initial contents, every other edge is EMPTY,
  // and VarValue holds each variable's declared initial value.
  [[nodiscard]] State initial() const;
  // S-SESSION: the next run of the same graph: VarValue persists, InTransit is
  // the initial one again (inputs are fed anew).
  [[nodiscard]] State next_run(const State& end_of_run) const;

  // S-ENABLED: every incoming edge holds its contents (GO on control edges).
  [[nodiscard]] bool enabled(const State& s, NodeId n) const;
  // The same rule over any representation of InTransit: empty(d) says whether
  // edge d is EMPTY (the explorer keeps states packed).
  template <class EmptyFn>
  [[nodiscard]] bool enabled_by(NodeId n, EmptyFn&& empty) const {
    const auto& node = program_->node(n);
    for (auto d : node.in)
      if (empty(d)) return false;
    for (auto d : node.control_in)  // S-CTRL-1: InTransit(d) = GO for all incoming control edges d
      if (empty(d)) return false;
    return true;
  }
  [[nodiscard]] std::vector<Blocker> why_not_enabled(const State& s, NodeId n) const;
  [[nodiscard]] std::vector<NodeId> enabled_nodes(const State& s) const;
  // The states s' that firing n in s can cause. Precondition: enabled(s, n).
  [[nodiscard]] Successors fire(const State& s, NodeId n) const;

  // S-TERMINAL: no node is enabled.
  [[nodiscard]] bool terminal(const State& s) const;
  // S-STUCK: the nodes that never fired in terminal state s.
  [[nodiscard]] std::vector<StuckNode> stuck(const State& s) const;
  // Whether n has fired in s, a state reached from initial(): n fired exactly
  // when all its incoming edges are EMPTY and the sources of all of them fired.
  [[nodiscard]] std::vector<bool> fired(const State& s) const;
  template <class EmptyFn>
  void fired_by(EmptyFn&& empty, std::vector<bool>& done) const {
    done.assign(program_->nodes().size(), false);
    for (auto n : program_->topological_order()) {
      bool all = true;
      const auto& node = program_->node(n);
      for (const auto* ports : {&node.in, &node.control_in})
        for (auto d : *ports) {
          const auto& e = program_->edge(d);
          all = all && empty(d) && (e.is_input() || done[e.src.index()]);
        }
      done[n.index()] = all;
    }
  }

  [[nodiscard]] Access access(NodeId n) const;
  // Whether firing n in s sets VarValue(x) without looking at its old value:
  // Assign-f with f deterministic and ignoring w (Write = Assign-Snd), and an
  // input v that is not an error (S-ERR-ASSIGN would leave x unchanged).
  [[nodiscard]] bool overwrites(const State& s, NodeId n) const;
  // The same, given the contents v of n's incoming tensor edge.
  [[nodiscard]] bool overwrites(NodeId n, const Content& v) const;
  // Whether firing n has exactly one possible result (not a relation, S-NONDET).
  [[nodiscard]] bool deterministic(NodeId n) const;
  // Whether a fires before b in every behaviour in which b fires: a is an
  // ancestor of b in G (S-ENABLED: b needs every incoming edge filled, and an
  // edge is filled only by its source firing).
  [[nodiscard]] bool precedes(NodeId a, NodeId b) const;

 private:
  std::shared_ptr<const Program> program_;
  Options options_;
  std::vector<Access> access_;
  // Bit a of row b: a precedes b. Built on first use (n^2 bits), so that
  // large graphs that never ask pay nothing.
  struct Ancestors {
    std::once_flag once;
    std::vector<std::vector<std::uint64_t>> rows;
  };
  std::shared_ptr<Ancestors> ancestors_ = std::make_shared<Ancestors>();
};

}  // namespace tfsem
