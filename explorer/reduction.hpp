// Partial-order reduction (--por): which firings the search explores from a
// state. Every reduction keeps every terminal state and every race of the full
// search (--por=none, the oracle); docs/explorer.md gives the arguments and
// tests/explorer checks them on the models and on random graphs.
//
// The reduction reads the semantics only through its interface: the frontier
// (which transitions are enabled), fire (through the cache of firings.hpp),
// and the dependency data the semantics publishes: access (which variable a
// node reads or updates), conflicts and necessary (which transitions must join
// a stubborn set), eager, overwrites and precedes. A Reduction keeps scratch
// space: one per thread.
#pragma once

#include "explorer/firings.hpp"
#include "semantics/dependence.hpp"
#include "support/hash.hpp"
#include "semantics/session.hpp"
#include "support/stop_token.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tfsem::explorer {

enum class Por : std::uint8_t {
  none,      // every enabled transition, from every state
  stubborn,  // stubborn sets with sleep sets; eager firings are taken at once
  rf,        // stubborn, and a write phase of one variable explored once per last write
};
std::string_view por_name(Por p);
std::optional<Por> parse_por(std::string_view name);
inline constexpr Por kAllPor[] = {Por::none, Por::stubborn, Por::rf};

// One move from an explored state: fire transition t; or, for a write phase
// (rf), fire every pending overwrite of one variable, t last; or, for the
// commuting updates of a variable no node reads, fire t and every other
// update of it enabled in the state.
struct Move {
  enum class Kind : std::uint8_t { one, write_phase, commuting };
  Transition t;
  Kind kind = Kind::one;
};

// Where a move leads: one packed state per result of the firings, each
// settled, with every firing (the settling ones included), and whether it
// would start an iteration past --max-iterations (then it is not taken).
class Landings {
 public:
  [[nodiscard]] std::size_t size() const { return ends_.size(); }
  [[nodiscard]] std::span<const Code> row(std::size_t i) const { return rows_[i]; }
  [[nodiscard]] std::span<const Step> steps(std::size_t i) const {
    const std::size_t begin = i == 0 ? 0 : ends_[i - 1];
    return {steps_.data() + begin, ends_[i] - begin};
  }
  [[nodiscard]] FrameId exceeds(std::size_t i) const { return exceeds_[i]; }

 private:
  friend class Reduction;
  void clear() { steps_.clear(), ends_.clear(), exceeds_.clear(); }
  // The next landing's row, starting as a copy of `from` (rows keep their storage from call to call).
  Row& start(std::span<const Code> from) {
    if (rows_.size() <= ends_.size()) rows_.resize(ends_.size() + 1);
    auto& r = rows_[ends_.size()];
    r.assign(from.begin(), from.end());
    return r;
  }
  // Ends the landing start() began.
  void finish(FrameId exceeds) {
    ends_.push_back(static_cast<std::uint32_t>(steps_.size()));
    exceeds_.push_back(exceeds);
  }
  std::vector<Row> rows_;
  Schedule steps_;
  std::vector<std::uint32_t> ends_;
  std::vector<FrameId> exceeds_;
};

using SleepSet = std::vector<Transition>;  // sorted

// When a long run of firings without a choice (settling) must give up: the
// stop token (an interrupt, the timeout, the memory), polled every few
// thousand firings, so that a search deep in a deterministic run still stops
// within a fraction of a second.
class Cutoff {
 public:
  Cutoff() = default;
  explicit Cutoff(const StopToken* stop) : stop_(stop) {}
  // Whether to give up, after one more firing.
  bool reached() {
    if (++count_ % kEvery != 0) return false;
    return stop_ != nullptr && stop_->stopped();
  }

 private:
  static constexpr std::uint64_t kEvery = 4096;
  const StopToken* stop_ = nullptr;
  std::uint64_t count_ = 0;
};

class Reduction {
 public:
  Reduction(Firings& firings, Por por, Cutoff cutoff = {});

  [[nodiscard]] Por por() const { return por_; }
  [[nodiscard]] Firings& firings() const { return f_; }
  // Fires eager transitions (Dependence::eager) until none is left (not under
  // none): such a t is independent of every other firing that can be enabled
  // beside it, so {t} is a stubborn set, and the state reached is the same in
  // any order. Without loops, the transitions that may have become eager are
  // among `seeds` (every node, for the initial state) and the consumers of
  // what settling fires, fired in passes; with loops or calls, depth first.
  // Returns the loop or function frame whose bound (--max-iterations,
  // --max-depth) a firing would pass. Seeds is used up (left empty or
  // holding scratch). A stop (the cutoff) leaves the row settled in part: a
  // state all the same, from which the rest is still enabled.
  FrameId settle(Row& row, Schedule& steps, std::vector<NodeId>& seeds);
  // Settles in full from now on, whatever the cutoff: a witness is rebuilt
  // after the search by replaying its settles, which the deadline, passed
  // by then, must not cut where the search did not.
  void uncut() { cutoff_ = {}; }
  // C-ENABLED on a row: its frontier (Firings::frontier), into out.
  void frontier(std::span<const Code> row, Frontier& out);
  // The moves to explore from a settled, non-terminal state, f its frontier
  // (the last row given to frontier(), when it is the same row).
  void moves(std::span<const Code> row, const Frontier& f, const SleepSet& sleep, std::vector<Move>& out);
  // Where the caller may note, for row's shape, that every two conflicting
  // accesses it enables are root transitions known to race harmfully
  // (RaceFlags): a race flag never goes back from harmful, so no race is
  // left to find at a state of that shape. Null without the shapes' cache;
  // the last row given to frontier() is looked up at once.
  [[nodiscard]] bool* races_settled(std::span<const Code> row) { return shapes_ ? &shape_of(row).races_settled : nullptr; }
  // Every result of a move from row, in a fixed order.
  void fire(std::span<const Code> row, const Move& m, Landings& out);
  // Whether a and b commute and neither can disable the other: they touch no
  // variable that one of them updates, and neither delivers to the other as
  // a Merge or an Exit, nor are they one Exit's deliveries to one context.
  [[nodiscard]] bool independent(Transition a, Transition b) const;

 private:
  Firings& f_;
  const Semantics& sem_;
  const Dependence& dep_;
  Por por_;
  bool loops_;                                   // the program has loop frames
  std::vector<std::vector<NodeId>> accessors_;   // by variable
  std::vector<bool> root_only_;                  // by variable: every accessor is in the root frame
  std::vector<bool> only_commuting_;             // by variable: its accessors are all commuting updates
  std::vector<std::vector<Codec::Bit>> records_;  // by root-only variable: its accessors' fired records
  // By node n: the destinations of its data and control out-edges, consumers_[consumers_at_[n], consumers_at_[n + 1]).
  std::vector<std::uint32_t> consumers_at_;
  std::vector<NodeId> consumers_;
  // Scratch space, reused from call to call.
  Frontier frontier_, commuting_frontier_;
  // A stubborn set's members, in the order they joined; each one's index + 1
  // (0: not a member): by node for the root context and for the first
  // kDenseContexts other contexts the state holds (by their place in the
  // frontier's present list, present_), in a map for the others.
  std::vector<std::uint32_t> member_root_;
  static constexpr std::size_t kDenseContexts = 64;
  const std::vector<ContextId>* present_ = nullptr;
  std::vector<std::vector<std::uint32_t>> member_present_;
  std::unordered_map<Transition, std::uint32_t> member_;
  std::vector<Transition> marked_, work_, scratch_, candidate_, best_;
  // The closure's edges (member, member it brought in), and scratch space for
  // finding the members that bring in its first one.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges_;
  std::vector<std::uint32_t> into_, from_, reach_;
  std::vector<char> reaches_, covered_;
  std::vector<NodeId> writes_, others_, seeds_;
  std::vector<Transition> pass_;   // settle(): the firings of one pass
  // settle_depth_first(): a firing waiting, and whether its context is known
  // to be started (C-BOUND; a context once started stays so).
  struct Waiting {
    Transition t;
    bool started = false;
  };
  std::vector<Waiting> stack_;
  Cutoff cutoff_;
  // settle() with loops or calls: depth first, as an executor on one thread
  // runs a call to its Return before its siblings.
  FrameId settle_depth_first(Row& row, Schedule& steps);
  // Whether w's transition, in a context started for sure (known so, or
  // every loop iteration it is in is below its frame's parallel_iterations)
  // and present in row, is enabled and eager there.
  [[nodiscard]] bool eager_now(std::span<const Code> row, Waiting w);
  // Dependence::eager, and one result in row: a Switch on a term that the
  // path condition does not decide has two (C-SWITCH-SYMBOLIC), a choice for
  // the search to make. Precondition: t is enabled in row.
  [[nodiscard]] bool eager(const RowView& v, Transition t);
  // Whether t is enabled (C-BOUND aside) and eager: Dependence::eager asked
  // first, which turns down an access before its rule reads its inputs.
  [[nodiscard]] bool enabled_and_eager(const RowView& v, Transition t);
  // Whether t, enabled, has one result in row.
  [[nodiscard]] bool one_result(const RowView& v, Transition t);
  // Whether context `to`, where a firing in the started context `from` put
  // a token, is started too (C-BOUND), as far as row tells cheaply.
  [[nodiscard]] bool starts(std::span<const Code> row, ContextId from, ContextId to) const;
  // Without loops or calls, the frontier and the smallest stubborn set are
  // functions of the state's shape (Codec::shape): computed once per shape,
  // at most kShapes kept. Where states seldom share a shape (an unreduced
  // search of independent chains: each state fires its own set of nodes), the
  // cache only costs: once it has been asked kShapeTrial times, if fewer
  // than half of its lookups so far found their shape, it is let go and
  // everything is computed directly.
  bool shapes_;  // the cache is in use
  std::uint64_t shape_lookups_ = 0, shape_hits_ = 0;
  static constexpr std::uint64_t kShapeTrial = std::uint64_t{1} << 12;
  // A variable that may be in a write phase, by what the state's shape
  // shows: at least two enabled Assign-f that may overwrite (the candidates,
  // Dependence::may_overwrite), and every other pending access comes after two
  // of them. Whether it is in one depends on which candidates overwrite
  // (write_phase).
  struct PhaseCandidates {
    VarId x;
    std::vector<NodeId> writes, others;
  };
  struct ByShape {
    Frontier frontier;
    std::vector<Transition> stubborn;
    std::vector<PhaseCandidates> phases;
    bool stubborn_known = false, phases_known = false;
    bool races_settled = false;  // races_settled()
  };
  std::vector<PhaseCandidates> phases_;  // moves(), when shapes are not cached
  PhaseCandidates scratch_phase_;        // phase_candidates(): the variable being screened
  static constexpr std::size_t kShapes = std::size_t{1} << 18;
  struct ShapeHash {
    std::size_t operator()(const std::string& shape) const noexcept { return hash_bytes(shape.data(), shape.size()); }
  };
  std::unordered_map<std::string, ByShape, ShapeHash> by_shape_;
  std::string shape_;
  // The entry of row's shape, its frontier computed if new (without loops or
  // calls only); kept as last_, which shape_of() takes for the row that frontier() was given.
  ByShape& shaped(std::span<const Code> row);
  ByShape& shape_of(std::span<const Code> row);
  ByShape* last_ = nullptr;
  const Code* last_row_ = nullptr;
  std::size_t last_size_ = 0;

  // The smallest stubborn set of the state, of the closures from each enabled transition, into best_.
  void smallest_stubborn_set(std::span<const Code> row, const Frontier& f);
  // The enabled members of the stubborn set closed from t, sorted, into out.
  // Marks in covered_ (by index in f.enabled) the enabled members whose own
  // closure is this one: those from which t is brought in again.
  void stubborn_set(std::span<const Code> row, const Frontier& f, Transition t, std::vector<Transition>& out);
  std::uint32_t& member_index(Transition v);
  // Marks in covered_ the enabled members (of the closure just computed) that bring its first member in again.
  void cover_same(const Frontier& f, std::span<const Transition> enabled_members);
  // The variables that may be in a write phase in row (f its frontier).
  void phase_candidates(std::span<const Code> row, const Frontier& f, std::vector<PhaseCandidates>& out);
  // The pending overwrites of c.x, if it is in a write phase in row: at least
  // two, all enabled, and every other pending access to it comes after all of
  // them. Only the last of them is ever observed, so one order per last write
  // suffices.
  void write_phase(std::span<const Code> row, const PhaseCandidates& c, std::vector<NodeId>& out);
  // Whether a stubborn set {t} may be taken as a commuting move: t updates a
  // variable that only commuting updates access (S-COMMUTE, no reader), so
  // every enabled update of it is a stubborn set of its own, one after the
  // other, and none of the states between them can show a race or an end.
  [[nodiscard]] bool commuting_move(std::span<const Code> row, Transition t);
  // Fires a commuting move's updates into row, m.t first, then the others
  // enabled in row in the frontier's order.
  void fire_commuting(Row& row, Transition t, Schedule& steps, std::vector<NodeId>& seeds);
  // A write phase's writes fired once for all its moves (fire_phase): the
  // state they were fired from, the state after all of them in accessor
  // order, those firings, the consumers of their outputs (settling's
  // seeds), and x as each write left it.
  struct Phase {
    Row parent, base, check;
    Schedule steps;
    std::vector<NodeId> seeds;
    std::vector<Code> wrote;
    VarId x;
  };
  Phase phase_;
  // The first moves of phases are also fired one write at a time and compared (check_phase).
  static constexpr std::size_t kPhaseChecks = 64;
  std::size_t phase_checks_ = 0;
  // Fires every write of the phase that the move firing `last` last belongs to, from row, into phase_.
  void fire_writes(std::span<const Code> row, Transition last);
  // The landing of the write phase move whose last write is `last`.
  void fire_phase(std::span<const Code> row, Transition last, Landings& out);
  // Throws unless firing `steps` one at a time from row reaches `landing`.
  void check_phase(std::span<const Code> row, std::span<const Step> steps, std::span<const Code> landing);
  // Fires t's result r (t's effect in row: found) into row and records the
  // step; the consumers of its outputs become seeds. Returns whether the
  // result starts an iteration past the bound.
  FrameId fire_step(Row& row, Transition t, Firings::Found found, std::uint32_t r, Schedule& steps,
                    std::vector<NodeId>& seeds);
};

}  // namespace tfsem::explorer
