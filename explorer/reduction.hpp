// Partial-order reduction (--por): which firings the search explores from a
// state. Every reduction keeps every terminal state and every race of the full
// search (--por=none, the oracle); docs/explorer.md gives the arguments and
// tests/explorer checks them on the models and on random graphs.
//
// The reduction reads the semantics only through its interface: enabled, fire,
// access (which variable a node reads or updates), overwrites, deterministic
// and precedes. Two firings are independent unless they access one variable
// and one of them updates it.
#pragma once

#include "semantics/semantics.hpp"
#include "semantics/session.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace tfsem::explorer {

enum class Por : std::uint8_t {
  none,      // every enabled node, from every state
  stubborn,  // stubborn sets with sleep sets; pure firings are taken eagerly
  rf,        // stubborn, and a write phase of one variable explored once per last write
};
std::string_view por_name(Por p);
std::optional<Por> parse_por(std::string_view name);
inline constexpr Por kAllPor[] = {Por::none, Por::stubborn, Por::rf};

// One move from an explored state: fire `node`; or, for a write phase (rf),
// fire every pending overwrite of one variable, `node` last.
struct Move {
  NodeId node;
  bool write_phase = false;
};

// Where a move leads: one state per result of the firings, each settled.
struct Landing {
  State state;
  Schedule steps;  // every firing, the settling ones included
};

using SleepSet = std::vector<NodeId>;  // sorted

class Reduction {
 public:
  Reduction(const Semantics& sem, Por por);

  [[nodiscard]] Por por() const { return por_; }
  // Fires enabled pure deterministic nodes until none is left (not under none):
  // they are independent of every firing, so {n} is a stubborn set.
  void settle(State& s, Schedule& steps) const;
  // The moves to explore from a settled, non-terminal state.
  [[nodiscard]] std::vector<Move> moves(const State& s, const std::vector<NodeId>& enabled, const SleepSet& sleep) const;
  // Every result of a move from s, in a fixed order.
  [[nodiscard]] std::vector<Landing> fire(const State& s, const Move& m) const;
  [[nodiscard]] bool independent(NodeId a, NodeId b) const;

 private:
  const Semantics& sem_;
  Por por_;
  std::vector<std::vector<NodeId>> accessors_;  // by variable

  [[nodiscard]] std::vector<NodeId> stubborn_set(const State& s, const std::vector<bool>& fired, NodeId t) const;
  // The pending overwrites of x, if x is in a write phase in s: at least two,
  // all enabled, and every other pending access to x comes after all of them.
  // Only the last of them is ever observed, so one order per last write suffices.
  [[nodiscard]] std::vector<NodeId> write_phase(const State& s, const std::vector<bool>& fired, VarId x) const;
};

}  // namespace tfsem::explorer
