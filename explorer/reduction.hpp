// Partial-order reduction (--por): which firings the search explores from a
// state. Every reduction keeps every terminal state and every race of the full
// search (--por=none, the oracle); docs/explorer.md gives the arguments and
// tests/explorer checks them on the models and on random graphs.
//
// The reduction reads the semantics only through its interface: enabled,
// fire (through the cache of firings.hpp), access (which variable a node reads
// or updates), overwrites, deterministic and precedes. Two firings are
// independent unless they access one variable and one of them updates it.
// A Reduction keeps scratch space: one per thread.
#pragma once

#include "explorer/firings.hpp"
#include "semantics/session.hpp"

#include <optional>
#include <span>
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

// Where a move leads: one packed state per result of the firings, each
// settled, with every firing (the settling ones included).
class Landings {
 public:
  explicit Landings(std::size_t width) : width_(width) {}
  [[nodiscard]] std::size_t size() const { return ends_.size(); }
  [[nodiscard]] const Code* row(std::size_t i) const { return rows_.data() + i * width_; }
  [[nodiscard]] std::span<const Step> steps(std::size_t i) const {
    const std::size_t begin = i == 0 ? 0 : ends_[i - 1];
    return {steps_.data() + begin, ends_[i] - begin};
  }

 private:
  friend class Reduction;
  std::size_t width_;
  std::vector<Code> rows_;
  Schedule steps_;
  std::vector<std::uint32_t> ends_;
};

using SleepSet = std::vector<NodeId>;  // sorted

class Reduction {
 public:
  Reduction(Firings& firings, Por por);

  [[nodiscard]] Por por() const { return por_; }
  [[nodiscard]] Firings& firings() const { return f_; }
  // Fires enabled pure deterministic nodes until none is left (not under none):
  // they are independent of every firing, so {n} is a stubborn set. The nodes
  // that may be enabled are among `seeds` (every node, for the initial state)
  // and the successors of what settling fires.
  void settle(Code* row, Schedule& steps, std::vector<NodeId> seeds);
  // The moves to explore from a settled, non-terminal state.
  void moves(const Code* row, const std::vector<NodeId>& enabled, const SleepSet& sleep, std::vector<Move>& out);
  // Every result of a move from row, in a fixed order.
  void fire(const Code* row, const Move& m, Landings& out);
  [[nodiscard]] bool independent(NodeId a, NodeId b) const;

 private:
  Firings& f_;
  const Semantics& sem_;
  Por por_;
  std::vector<std::vector<NodeId>> accessors_;  // by variable
  std::vector<bool> settles_;                   // by node: pure and deterministic
  std::vector<std::vector<NodeId>> successors_;  // by node: destinations of its outgoing edges
  // Scratch space, reused from call to call.
  std::vector<bool> fired_;
  std::vector<bool> member_;
  std::vector<NodeId> work_, candidate_, writes_, others_;

  // The enabled members of a stubborn set containing t, sorted, into out.
  void stubborn_set(const Code* row, NodeId t, std::vector<NodeId>& out);
  // The pending overwrites of x, if x is in a write phase in row: at least two,
  // all enabled, and every other pending access to x comes after all of them.
  // Only the last of them is ever observed, so one order per last write suffices.
  void write_phase(const Code* row, VarId x, std::vector<NodeId>& out);
};

}  // namespace tfsem::explorer
