#include "explorer/distributed.hpp"

#include "explorer/expansion.hpp"
#include "explorer/findings.hpp"
#include "explorer/memory_gauge.hpp"
#include "explorer/stopping.hpp"
#include "explorer/visited.hpp"
#include "explorer/wire.hpp"
#include "support/hash.hpp"

#include <mpi.h>

#include <algorithm>
#include <new>
#include <chrono>
#include <cstdio>
#include <exception>
#include <map>
#include <string_view>

namespace tfsem::explorer::distributed {

bool available() { return true; }
std::string unavailable_reason() { return ""; }

namespace {

using Clock = std::chrono::steady_clock;
using wire::Bytes;

// MPI, started on first use and finalized at exit.
class Mpi {
 public:
  static Mpi& get() {
    static Mpi mpi;
    return mpi;
  }
  int rank = 0, size = 1;

 private:
  Mpi() {
    int started = 0;
    MPI_Initialized(&started);
    if (!started) {
      MPI_Init(nullptr, nullptr);
      owned_ = true;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  ~Mpi() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (owned_ && !finalized) MPI_Finalize();
  }
  bool owned_ = false;
};

constexpr std::uint32_t kNone = UINT32_MAX;

// How a state was first reached: a move from a parent on some rank (the
// move's context is that rank's ContextId), and which of its results.
struct Arrival {
  std::uint32_t parent_rank, parent;
  Move move;
  std::uint32_t result;
};

// What every rank learns of every other after each round.
struct Status {
  std::uint64_t next;    // the lowest level holding a state it has not expanded; kNoLevel: none
  std::uint64_t states;  // stored
  std::uint64_t stop;    // why it stopped (Stop)
};

// A chain of parents followed from rank to rank, back to the initial state.
struct Chain {
  std::uint32_t rank, state;
  bool has_move = false;  // the move from `state` to the chain's previous state
  Move move{};
  std::uint32_t result = 0;
  std::vector<Schedule> segments{};  // from the target back
  bool done = false;
};

class Search {
 public:
  Search(const Semantics& sem, const ExploreOptions& opts)
      : sem_(sem), opts_(opts), codec_(sem), visited_(codec_.width()), findings_(sem), stopping_(sem, opts),
        x_(sem, codec_, opts.por, opts.limits), rank_(Mpi::get().rank), size_(Mpi::get().size),
        out_(static_cast<std::size_t>(size_)) {}

  Report run() {
    stopping_.start();
    result_.por = opts_.por;
    std::uint64_t level = kNoLevel;
    if (const auto exceeds = x_.initial(initial_row_, initial_steps_); exceeds.valid()) {
      stopping_.at_bound(exceeds);
    } else {
      level = initial_steps_.size();
      if (rank_ == 0) send(kNone, nullptr, 0, initial_row_, level, {}, 1);  // to its owner
    }
    while (level != kNoLevel) {
      if (level != level_) {
        visited_.drop_level(level_);
        level_ = level, next_ = 0;
      }
      expand_round();
      exchange();
      level = agree_on_status();
    }
    return finish();
  }

 private:
  static constexpr std::size_t kRound = 4096;  // states a rank expands between two exchanges

  const Semantics& sem_;
  const ExploreOptions& opts_;
  Codec codec_;
  Visited<Arrival> visited_;
  Findings findings_;
  Stopping stopping_;
  Expander x_;
  int rank_, size_;
  Row initial_row_, row_;
  Schedule initial_steps_;
  std::uint64_t level_ = kNoLevel;                  // the level being expanded
  std::size_t next_ = 0;                            // its next state to expand
  std::vector<RaceSeen> seen_;
  std::vector<Bytes> out_;  // by destination rank: this round's successors
  Bytes in_, state_bytes_;
  wire::TensorCache tensors_;  // every tensor received, once
  Result result_;
  RankReport report_;
  MemoryGauge gauge_;

  std::uint64_t counted() const {
    std::size_t buffers = in_.capacity();
    for (const auto& b : out_) buffers += b.capacity();
    return visited_.bytes() + codec_.bytes() + tensors_.size() * 128 + x_.firings.bytes() + findings_.bytes() + buffers;
  }
  std::uint64_t memory() { return gauge_.bytes(counted()); }

  // Time spent in MPI: waiting for the other ranks (and copying).
  template <class F>
  void mpi(F&& f) {
    const auto t = Clock::now();
    f();
    report_.idle_seconds += std::chrono::duration<double>(Clock::now() - t).count();
  }

  // After each state expanded and each rank's successors merged: the stop
  // token (an interrupt, --timeout), --max-memory (--max-states is looked at
  // as states are stored, and over every rank after each round).
  void check_limits() {
    if (!stopping_.stopped_by_token()) stopping_.past_memory(memory());
  }

  // ---- Expanding: this rank's states of the level, at most kRound a round. ----

  // An allocation that fails here, or while a rank's messages are put
  // together or merged, stops this rank, out of memory, and so every rank at
  // the next agree_on_status, INCOMPLETE with this rank's reason.
  void expand_round() {
    const auto* states = visited_.level(level_);
    if (states == nullptr) return;
    const auto& level = *states;
    try {
      for (std::size_t n = 0; next_ < level.size() && n < kRound && !stopping_.stopped(); ++next_, ++n) {
        expand(level[next_]);
        check_limits();
      }
    } catch (const std::bad_alloc&) {
      stopping_.out_of_memory();
    }
  }

  void expand(StateIndex si) {
    visited_.table().load(si, row_);
    const auto sleep = visited_.sleep(level_, si);
    if (x_.terminal(row_)) return findings_.terminal(codec_.unpack(row_), {si, level_}, visited_.paths(si), result_.counters);
    seen_.clear();
    x_.races(row_, findings_.race_flags(), seen_);
    for (const auto& r : seen_) findings_.race(r, {si, level_});
    result_.counters.transitions_pruned += x_.successors(row_, sleep, [&](const SuccessorSeen& s) {
      if (stopping_.stopped()) return;
      if (s.exceeds.valid()) return stopping_.at_bound(s.exceeds);
      send(si, &s.move, s.result, s.row, level_ + s.steps.size(), s.sleep, visited_.paths(si));
    });
  }

  // A successor for its owner: parent, move, result, level, paths, sleep set, state.
  void send(StateIndex parent, const Move* move, std::uint32_t result, std::span<const Code> row, std::uint64_t level,
            std::span<const Transition> sleep, PathCount paths) {
    state_bytes_.clear();
    wire::Writer(sem_, state_bytes_).state(codec_.unpack(row));
    // The same bytes hash alike on every rank (one executable); mixed so that the remainder spreads them.
    const auto h = std::hash<std::string_view>{}(std::string_view(state_bytes_.data(), state_bytes_.size()));
    const auto owner = mix64(h) % static_cast<std::uint64_t>(size_);
    auto& out = out_[owner];
    wire::Writer w(sem_, out);
    w.u32(parent);
    w.u32(move ? move->t.node.value : kNone);
    w.u32(move ? move->t.context.value : kNone);
    w.u8(static_cast<std::uint8_t>(move ? move->kind : Move::Kind::one));
    w.u32(result);
    w.u64(level);
    w.u64(paths);
    w.u32(static_cast<std::uint32_t>(sleep.size()));
    for (auto t : sleep) w.transition(t);
    out.insert(out.end(), state_bytes_.begin(), state_bytes_.end());
  }

  // ---- Exchanging: every rank's successors to their owners, merged in rank order. ----

  void exchange() {
    std::vector<int> send_counts(size_), recv_counts(size_), send_at(size_), recv_at(size_);
    Bytes all;
    try {
      for (int r = 0; r < size_; ++r) {
        const auto& b = out_[r];
        if (all.size() + b.size() > INT32_MAX) throw std::runtime_error("a round's messages pass 2 GiB");
        send_at[r] = static_cast<int>(all.size());
        send_counts[r] = static_cast<int>(b.size());
        all.insert(all.end(), b.begin(), b.end());
        if (r != rank_) report_.bytes_sent += b.size();
      }
    } catch (const std::bad_alloc&) {  // this rank sends nothing, and stops
      stopping_.out_of_memory();
      Bytes().swap(all);
      std::fill(send_counts.begin(), send_counts.end(), 0);
      std::fill(send_at.begin(), send_at.end(), 0);
    }
    mpi([&] { MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD); });
    std::size_t total = 0;
    for (int r = 0; r < size_; ++r) {
      recv_at[r] = static_cast<int>(total);
      total += static_cast<std::size_t>(recv_counts[r]);
      if (total > INT32_MAX) throw std::runtime_error("a round's messages pass 2 GiB");
      if (r != rank_) report_.bytes_received += static_cast<std::size_t>(recv_counts[r]);
    }
    try {
      in_.resize(total);
    } catch (const std::bad_alloc&) {  // the stop frees the token's reserve: room to take this round's part, then stop
      stopping_.out_of_memory();
      in_.resize(total);
    }
    mpi([&] {
      MPI_Alltoallv(all.data(), send_counts.data(), send_at.data(), MPI_BYTE, in_.data(), recv_counts.data(), recv_at.data(),
                    MPI_BYTE, MPI_COMM_WORLD);
    });
    for (auto& b : out_) b.clear();
    try {
      for (int r = 0; r < size_ && !stopping_.stopped(); ++r) merge(static_cast<std::uint32_t>(r), std::span(in_).subspan(recv_at[r], recv_counts[r]));
    } catch (const std::bad_alloc&) {
      stopping_.out_of_memory();
    }
  }

  void merge(std::uint32_t from, std::span<const char> bytes) {
    wire::Reader in(sem_, bytes, &tensors_);
    SleepSet sleep;
    while (!in.done() && !stopping_.stopped()) {
      Arrival how{from, in.u32(), {}, 0};
      const auto node = in.u32(), context = in.u32();
      how.move = {{NodeId(node), ContextId(context)}, static_cast<Move::Kind>(in.u8())};
      how.result = in.u32();
      const auto level = in.u64();
      const auto paths = in.u64();
      sleep.resize(in.u32());
      for (auto& t : sleep) t = in.transition();
      std::sort(sleep.begin(), sleep.end());  // in this rank's order of contexts
      codec_.pack(in.state(), row_);
      if (how.parent == kNone) how.parent_rank = kNone;
      else ++result_.counters.transitions;
      add(row_, how, level, sleep, paths);
      stopping_.past_states(visited_.size());  // this rank's alone passing --max-states stops the search
    }
    if (!stopping_.stopped()) check_limits();
  }

  void add(std::span<const Code> row, const Arrival& how, std::uint64_t level, std::span<const Transition> sleep, PathCount paths) {
    if (!visited_.add(row, StateTable::hash(row), how, level, sleep, paths).second) ++result_.counters.states_matched;
  }

  // Every rank's status; returns the next level to expand (kNoLevel: the search is over).
  std::uint64_t agree_on_status() {
    Status mine{kNoLevel, visited_.size(), static_cast<std::uint64_t>(stopping_.why())};
    if (const auto* states = visited_.level(level_); states != nullptr && next_ < states->size()) {
      mine.next = level_;
    } else {
      mine.next = visited_.next_level(level_ == kNoLevel ? 0 : level_ + 1);
    }
    std::vector<Status> all(static_cast<std::size_t>(size_));
    mpi([&] { MPI_Allgather(&mine, 3, MPI_UINT64_T, all.data(), 3, MPI_UINT64_T, MPI_COMM_WORLD); });
    std::uint64_t next = kNoLevel, states = 0;
    bool stopped = false;
    for (const auto& s : all) {
      next = std::min(next, s.next);
      states += s.states;
      stopped = stopped || s.stop != 0;
    }
    stopped = stopped || stopping_.past_states(states);
    if (stopped) {
      result_.complete = false;  // another rank's reason is gathered at the end
      return kNoLevel;
    }
    if (rank_ == 0) stopping_.progress(states, [&] { return memory(); });
    return next;
  }

  // ---- Gathering on rank 0. ----

  // Each rank's bytes, on rank 0.
  std::vector<Bytes> gather(const Bytes& mine) {
    const int n = static_cast<int>(mine.size());
    std::vector<int> counts(size_), at(size_);
    mpi([&] { MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD); });
    std::size_t total = 0;
    for (int r = 0; r < size_; ++r) at[r] = static_cast<int>(total), total += static_cast<std::size_t>(counts[r]);
    Bytes all(rank_ == 0 ? total : 0);
    mpi([&] { MPI_Gatherv(mine.data(), n, MPI_BYTE, all.data(), counts.data(), at.data(), MPI_BYTE, 0, MPI_COMM_WORLD); });
    std::vector<Bytes> out;
    if (rank_ == 0)
      for (int r = 0; r < size_; ++r) out.emplace_back(all.begin() + at[r], all.begin() + at[r] + counts[r]);
    return out;
  }

  // Rank 0's bytes, on every rank.
  Bytes broadcast(Bytes bytes) {
    std::uint64_t n = bytes.size();
    mpi([&] { MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD); });
    bytes.resize(n);
    mpi([&] { MPI_Bcast(bytes.data(), static_cast<int>(n), MPI_BYTE, 0, MPI_COMM_WORLD); });
    return bytes;
  }

  Report finish() {
    report_.states = visited_.size();
    report_.memory_bytes = std::max(memory(), gauge_.peak());
    result_.counters.states_stored = visited_.size();
    report_.store_bytes = visited_.bytes();
    stopping_.into(result_);
    Report out;
    out.ranks = gather_reports();
    // Every rank stops for rank 0's reason (a command that runs several searches stops alike on every rank).
    Bytes why(result_.stopped_by.begin(), result_.stopped_by.end());
    why = broadcast(std::move(why));
    result_.stopped_by.assign(why.begin(), why.end());
    auto outcomes = gather_outcomes();
    auto races = gather_races();
    // The witnesses: the states' parents, followed from rank to rank.
    std::vector<Chain> chains;
    for (const auto& [key, o] : outcomes) chains.push_back({o.rank, o.state});
    for (const auto& [key, r] : races) chains.push_back({r.rank, r.state});
    follow(chains);
    if (rank_ == 0) {
      std::size_t k = 0;
      std::vector<std::pair<std::uint64_t, std::string>> order;
      for (auto& [key, o] : outcomes) {
        o.outcome.witness = path(chains[k++]);
        order.emplace_back(o.level, key);
      }
      std::sort(order.begin(), order.end());
      for (const auto& [level, key] : order) result_.outcomes.push_back(std::move(outcomes.at(key).outcome));
      for (auto& [key, r] : races) {
        result_.races.push_back(race_of(sem_, key.first, key.second, r.harmful, path(chains[k++]), std::move(r.path)));
      }
    }
    result_.seconds = stopping_.elapsed();
    result_.memory_bytes = report_.memory_bytes;
    if (rank_ == 0)
      for (const auto& r : out.ranks) {
        result_.memory_bytes = std::max(result_.memory_bytes, r.memory_bytes);
        result_.store_bytes += r.store_bytes;
      }
    out.result = std::move(result_);
    return out;
  }

  // Every rank's report and counters; rank 0 adds them up and takes the first rank's reason to stop.
  std::vector<RankReport> gather_reports() {
    Bytes mine;
    wire::Writer w(sem_, mine);
    const auto& c = result_.counters;
    for (auto v : {report_.states, report_.bytes_sent, report_.bytes_received, report_.memory_bytes, report_.store_bytes, c.states_matched,
                   c.transitions, c.terminal_states, c.behaviours, c.transitions_pruned})
      w.u64(v);
    w.raw(&report_.idle_seconds, sizeof(double));
    w.text(result_.stopped_by);
    const auto all = gather(mine);
    std::vector<RankReport> out;
    if (rank_ != 0) return out;
    Counters sum;
    std::string stopped_by;
    for (const auto& bytes : all) {
      wire::Reader in(sem_, bytes);
      auto& r = out.emplace_back();
      r.states = in.u64(), r.bytes_sent = in.u64(), r.bytes_received = in.u64(), r.memory_bytes = in.u64(), r.store_bytes = in.u64();
      sum.states_stored += r.states;
      sum.states_matched += in.u64();
      sum.transitions += in.u64();
      sum.terminal_states += in.u64();
      sum.behaviours = saturating_add(sum.behaviours, in.u64());
      sum.transitions_pruned += in.u64();
      in.raw(&r.idle_seconds, sizeof(double));
      if (auto why = in.text(); stopped_by.empty()) stopped_by = std::move(why);
    }
    result_.counters = sum;
    if (!result_.complete) result_.stopped_by = stopped_by;
    return out;
  }

  struct GatheredOutcome {
    Outcome outcome;
    std::uint64_t level;
    std::uint32_t rank, state;
  };
  // Rank 0: by outcome text, each with the first terminal state of the lowest level.
  std::map<std::string, GatheredOutcome> gather_outcomes() {
    Bytes mine;
    wire::Writer w(sem_, mine);
    for (const auto& o : findings_.outcomes()) {
      w.text(o.text);
      w.u64(o.first.level);
      w.u32(o.first.state);
      w.u64(o.paths);
      visited_.table().load(o.first.state, row_);
      w.state(codec_.unpack(row_));
    }
    const auto all = gather(mine);
    std::map<std::string, GatheredOutcome> out;
    for (std::uint32_t r = 0; r < all.size(); ++r) {
      wire::Reader in(sem_, all[r]);
      while (!in.done()) {
        auto key = in.text();
        const auto level = in.u64();
        const auto state = in.u32();
        const auto paths = in.u64();
        auto terminal = in.state();
        auto [it, fresh] = out.try_emplace(key, GatheredOutcome{outcome_of(sem_, terminal), level, r, state});
        auto& o = it->second;
        if (!fresh && level < o.level) o.level = level, o.rank = r, o.state = state;
        o.outcome.paths = saturating_add(o.outcome.paths, paths);
      }
    }
    return out;
  }

  struct GatheredRace {
    bool harmful;
    std::uint64_t level;
    std::uint32_t rank, state;
    PathCondition path;  // the witness state's
  };
  using GatheredRaces = std::map<std::pair<Transition, Transition>, GatheredRace, Canonical>;

  // Rank 0: by the two transitions, in canonical order.
  GatheredRaces gather_races() {
    Bytes mine;
    wire::Writer w(sem_, mine);
    for (const auto& [key, r] : findings_.races()) {
      w.transition(key.first);
      w.transition(key.second);
      w.u8(r.harmful ? 1 : 0);
      w.u64(r.at.level);
      w.u32(r.at.state);
      visited_.table().load(r.at.state, row_);
      w.path(codec_.unpack(row_).path);
    }
    const auto all = gather(mine);
    const Canonical before{&sem_.contexts()};
    GatheredRaces out(before);
    for (std::uint32_t r = 0; r < all.size(); ++r) {
      wire::Reader in(sem_, all[r]);
      while (!in.done()) {
        auto a = in.transition(), b = in.transition();
        if (before(b, a)) std::swap(a, b);
        GatheredRace seen{in.u8() != 0, in.u64(), r, in.u32(), {}};
        seen.path = in.path();
        auto [it, fresh] = out.try_emplace({a, b}, seen);
        auto& race = it->second;
        // The witness: a state where the race is harmful, if any, of the lowest level.
        if (!fresh && std::pair(!seen.harmful, seen.level) < std::pair(!race.harmful, race.level)) race = seen;
      }
    }
    // S-COMMUTE: of each rank's race of two commuting updates' nodes, the first by level, then in canonical order.
    std::map<std::pair<NodeId, NodeId>, std::pair<Transition, Transition>> commuting;
    for (auto it = out.begin(); it != out.end();) {
      const auto& [key, race] = *it;
      if (!commuting_race(sem_, key.first, key.second)) {
        ++it;
        continue;
      }
      const auto [kept, fresh] = commuting.try_emplace(std::minmax(key.first.node, key.second.node), key);
      if (fresh) {
        ++it;
      } else if (out.at(kept->second).level <= race.level) {
        it = out.erase(it);
      } else {
        out.erase(kept->second);
        kept->second = key;
        ++it;
      }
    }
    return out;
  }

  // Every rank takes part: rank 0 asks, a round at a time, each chain's rank
  // for the firings of the chain's last move and the state's own arrival.
  void follow(std::vector<Chain>& chains) {
    for (;;) {
      Bytes ask;
      if (rank_ == 0) {
        wire::Writer w(sem_, ask);
        for (const auto& c : chains)
          if (!c.done) {
            w.u32(c.rank), w.u32(c.state), w.u8(c.has_move ? 1 : 0), w.u32(c.move.t.node.value), w.u32(c.move.t.context.value);
            w.u8(static_cast<std::uint8_t>(c.move.kind)), w.u32(c.result);
          }
      }
      ask = broadcast(std::move(ask));
      if (ask.empty()) return;
      Bytes answer;
      wire::Writer w(sem_, answer);
      for (wire::Reader in(sem_, ask); !in.done();) {
        const auto r = in.u32(), state = in.u32();
        const bool has_move = in.u8() != 0;
        const auto node = in.u32(), context = in.u32();
        const Move move{{NodeId(node), ContextId(context)}, static_cast<Move::Kind>(in.u8())};
        const auto result = in.u32();
        if (r != static_cast<std::uint32_t>(rank_)) continue;
        if (has_move) {
          visited_.table().load(state, row_);
          x_.reduction.fire(row_, move, x_.landings);
          w.steps(x_.landings.steps(result));
        }
        const auto& a = visited_.arrival(state);
        w.u32(a.parent_rank), w.u32(a.parent), w.u32(a.move.t.node.value), w.u32(a.move.t.context.value);
        w.u8(static_cast<std::uint8_t>(a.move.kind)), w.u32(a.result);
      }
      const auto answers = gather(answer);
      if (rank_ != 0) continue;
      std::vector<wire::Reader> readers;
      for (const auto& b : answers) readers.emplace_back(sem_, b);
      for (auto& c : chains) {
        if (c.done) continue;
        auto& in = readers[c.rank];
        if (c.has_move) c.segments.push_back(in.steps());
        c.rank = in.u32(), c.state = in.u32();
        const auto node = in.u32(), context = in.u32();
        c.move = {{NodeId(node), ContextId(context)}, static_cast<Move::Kind>(in.u8())};
        c.result = in.u32();
        c.has_move = true;
        c.done = c.rank == kNone;
      }
    }
  }

  Schedule path(const Chain& c) const {
    Schedule out = initial_steps_;
    for (auto it = c.segments.rbegin(); it != c.segments.rend(); ++it) out.insert(out.end(), it->begin(), it->end());
    return out;
  }
};

}  // namespace

int rank() { return Mpi::get().rank; }
int ranks() { return Mpi::get().size; }

Report explore(const Semantics& sem, const ExploreOptions& options) {
  try {
    return Search(sem, options).run();
  } catch (const std::bad_alloc&) {
    // Where the ranks cannot agree to stop (in a collective, or gathering
    // the report): the job ends, INCOMPLETE.
    std::fprintf(stderr, "tfsem: rank %d: out of memory where the ranks cannot stop together: the job ends\n", rank());
    MPI_Abort(MPI_COMM_WORLD, 3);
    throw;
  } catch (const std::exception& e) {
    // The other ranks wait in a collective for this one: end the job.
    std::fprintf(stderr, "tfsem: internal error on rank %d: %s\n", rank(), e.what());
    MPI_Abort(MPI_COMM_WORLD, 4);
    throw;
  }
}

int agree(int code) {
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return code;
}

}  // namespace tfsem::explorer::distributed
