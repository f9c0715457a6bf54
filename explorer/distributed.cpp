#include "explorer/distributed.hpp"

#include "explorer/channel.hpp"
#include "explorer/checkpoint.hpp"
#include "explorer/expansion.hpp"
#include "explorer/findings.hpp"
#include "explorer/memory_gauge.hpp"
#include "explorer/stopping.hpp"
#include "explorer/visited.hpp"
#include "explorer/wire.hpp"
#include "semantics/diagnostic.hpp"
#include "support/hash.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <new>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <map>
#include <optional>
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

// How a state was first reached: a move from a parent on some rank, and
// which of its results. The move's context is this rank's ContextId: moves
// travel between ranks in a channel's numbers (channel.hpp) or as canonical
// bytes (wire.hpp), as states do.
struct Arrival {
  std::uint32_t parent_rank, parent;
  Move move;
  std::uint32_t result;
};

// What every rank learns of every other after each round.
struct Status {
  std::uint64_t next;        // the lowest level holding a state it has not expanded; kNoLevel: none
  std::uint64_t queued;      // its states of level `next` not expanded yet
  std::uint64_t states;      // stored
  std::uint64_t stop;        // why it stopped (Stop)
  std::uint64_t checkpoint;  // rank 0's: a periodic checkpoint is due
};
constexpr int kStatusWords = sizeof(Status) / sizeof(std::uint64_t);

// The tags of a round's messages between two ranks, when its exchange
// overlaps the next round's expansion (Search::overlapped_round).
constexpr int kStatusTag = 1, kSuccessorsTag = 2;

// The rank that owns a state: its hash that every rank computes alike
// (channel.hpp), mixed so that the remainder spreads them.
std::uint32_t owner(std::uint64_t canonical, int ranks) {
  return static_cast<std::uint32_t>(mix64(canonical) % static_cast<std::uint64_t>(ranks));
}

// The counters each rank keeps and the report adds up (the states stored are the store's).
std::array<std::uint64_t*, 6> summed(Counters& c) {
  return {&c.states_matched, &c.transitions, &c.terminal_states, &c.behaviours, &c.transitions_pruned, &c.firings};
}

// A move on the wire (null: none, the initial state's arrival): its
// transition as canonical bytes, read back into this rank's contexts.
void move_out(wire::Writer& w, const Move* m) {
  w.u8(m != nullptr ? 1 : 0);
  if (m == nullptr) return;
  w.transition(m->t);
  w.u8(static_cast<std::uint8_t>(m->kind));
}
Move move_in(wire::Reader& in) {  // none: a move of no node
  if (in.u8() == 0) return {};
  const auto t = in.transition();
  return {t, static_cast<Move::Kind>(in.u8())};
}

// A stored state in a checkpoint's part: its canonical bytes, its canonical
// hash (channel.hpp: a rank resuming finds the owner without reading the
// state) and its arrival (the parent's rank and index as the part's search
// numbered them).
struct Stored {
  std::span<const char> bytes;
  std::uint64_t hash;
  Arrival how;
};
void stored_out(wire::Writer& w, std::span<const char> bytes, std::uint64_t hash, const Arrival& a) {
  w.u32(static_cast<std::uint32_t>(bytes.size()));
  w.raw(bytes.data(), bytes.size());
  w.u64(hash);
  w.u32(a.parent_rank), w.u32(a.parent);
  move_out(w, a.parent == kNone ? nullptr : &a.move);
  w.u32(a.result);
}
Stored stored_in(wire::Reader& in) {
  const auto bytes = in.take(in.u32());
  const auto hash = in.u64();
  return {bytes, hash, Arrival{in.u32(), in.u32(), move_in(in), in.u32()}};
}

// A stop after which the ranks' parts are whole (a state's expansion is
// completed or undone, every successor sent is merged): a checkpoint can be
// written, and the search resumed from it.
bool resumable(Stop why) { return why == Stop::none || why == Stop::timeout || why == Stop::interrupt; }

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
  // With `checkpoints` (null: none): resumed from the last whole generation
  // of a checkpoint when asked to, written to after a round that leaves
  // nothing in flight when rank 0's clock says one is due, at the end, and at
  // a stop by an interrupt or the timeout.
  Search(const Semantics& sem, const ExploreOptions& opts, const Checkpoints* checkpoints, std::size_t round)
      : sem_(sem), opts_(opts), codec_(sem), visited_(codec_.width()), findings_(sem), stopping_(sem, opts),
        x_(sem, codec_, opts.por, opts.limits), rank_(Mpi::get().rank), size_(Mpi::get().size),
        round_(std::max<std::size_t>(round, 1)), canonical_(codec_), checkpoints_(checkpoints),
        heard_(static_cast<std::size_t>(size_)) {
    for (int r = 0; r < size_; ++r) senders_.emplace_back(codec_), receivers_.emplace_back(codec_);
    for (auto& p : posted_) {
      p.successors.resize(static_cast<std::size_t>(size_));
      p.requests.assign(2 * static_cast<std::size_t>(size_), MPI_REQUEST_NULL);
    }
    if (checkpoints_ == nullptr) return;
    clock_.emplace(checkpoints_->every_s);
    const auto manifest = manifest_path(*checkpoints_, opts_.por);
    together([&] {
      if (checkpoints_->resume && (checkpoints_->required || std::filesystem::exists(manifest))) {
        if (!std::filesystem::exists(manifest) && std::filesystem::exists(checkpoint_path(*checkpoints_, opts_.por)))
          throw CheckpointError(checkpoint_path(*checkpoints_, opts_.por) +
                                ": the checkpoint of a search without --distributed: resume it without --distributed");
        restore(manifest);
      } else {
        std::filesystem::create_directories(checkpoints_->dir);
      }
    });
  }

  Report run() {
    stopping_.start();
    result_.por = opts_.por;
    std::uint64_t level = kNoLevel;
    const auto exceeds = x_.initial(initial_row_, initial_steps_);  // resumed, for the witnesses
    if (resumed_) {
      level = agree_on_status();
    } else if (exceeds.valid()) {
      stopping_.at_bound(exceeds);
      whole_ = false;  // resuming would stop there again
    } else {
      level = initial_steps_.size();
      if (rank_ == 0) {
        send(kNone, nullptr, 0, initial_row_, level, {}, 1);  // to its owner
        result_.counters.firings = initial_steps_.size();
      }
    }
    while (level != kNoLevel) {
      checkpoint_due_ = false;  // only this round's agreement calls for one, with nothing in flight
      if (level != level_) {
        if (level_ != kNoLevel) {
          visited_.drop_level(level_);
          queued_.erase(level_);
        }
        level_ = level;
        overlap_ = size_ > 1 && widest_ > round_;
      }
      expand_round();
      if (overlap_) {
        level = overlapped_round();
      } else {
        exchange();
        level = agree_on_status();
      }
      if (level != kNoLevel && checkpoint_due_) checkpoint();
    }
    if (checkpoints_ != nullptr && whole_) checkpoint();
    return finish();
  }

 private:
  const Semantics& sem_;
  const ExploreOptions& opts_;
  Codec codec_;
  Visited<Arrival> visited_;
  StateLists queued_;  // the unexpanded states by level, in the order they were stored (an expanded one goes)
  Findings findings_;
  Stopping stopping_;
  Expander x_;
  int rank_, size_;
  std::size_t round_;  // the most states a rank expands between two exchanges
  Row initial_row_, row_;
  Schedule initial_steps_;
  std::uint64_t level_ = kNoLevel;                  // the level being expanded
  std::vector<RaceSeen> seen_;
  channel::Canonical canonical_;                // which rank owns a state
  std::vector<channel::Sender> senders_;        // by destination rank: this round's successors (not to itself)
  std::vector<channel::Receiver> receivers_;    // by source rank (not itself)
  channel::Loopback loopback_;                  // this round's successors it owns
  Bytes in_, state_bytes_;
  // merge(): the successors read and not yet stored.
  static constexpr std::size_t kAhead = 8;
  struct Arrived {
    channel::Successor s;
    SleepSet sleep;
    Row row;
    std::uint64_t hash = 0;
  };
  std::array<Arrived, kAhead> arrived_;
  wire::TensorCache tensors_;  // every tensor a checkpoint's part holds, once
  Result result_;
  RankReport report_;
  MemoryGauge gauge_;
  const Checkpoints* checkpoints_;
  std::optional<CheckpointClock> clock_;  // with checkpoints
  std::uint64_t generation_ = 0;          // of the last checkpoint written or resumed from (0: none)
  bool resumed_ = false;
  bool checkpoint_due_ = false;  // agree_on_status() of this round: rank 0's clock says so
  bool whole_ = true;            // agree_on_status(): every rank's part is whole (no stop, or a resumable one)
  std::uint64_t widest_ = 0;     // agree_on_status(): the most states of the next level any rank holds
  // A level wider than a round on some rank overlaps each round's exchange
  // with the next round's expansion: a round's messages (posted_) are
  // received one round later. Two rounds' buffers, as the other ranks may
  // still be reading the one before.
  bool overlap_ = false;
  struct Posted {
    std::vector<Bytes> successors;      // by rank: the successors that rank owns (none to itself)
    Status status{};                    // this rank's, after the round's expansion
    std::vector<MPI_Request> requests;  // by rank: its status and its successors
  };
  std::array<Posted, 2> posted_;
  std::uint64_t rounds_posted_ = 0, rounds_heard_ = 0;
  std::vector<Status> heard_;  // receive(): every rank's status of the round received

  std::uint64_t counted() const {
    std::size_t buffers = in_.capacity();
    for (const auto& c : senders_) buffers += c.memory();
    for (const auto& c : receivers_) buffers += c.memory();
    buffers += loopback_.memory();
    for (const auto& p : posted_)
      for (const auto& b : p.successors) buffers += b.capacity();
    buffers += state_lists_bytes(queued_);
    return visited_.bytes() + codec_.bytes() + canonical_.bytes() + tensors_.size() * 128 + x_.firings.bytes() + findings_.bytes() +
           buffers;
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
  // token (an interrupt, --timeout), and with `count_memory` --max-memory
  // (--max-states is looked at as states are stored, and over every rank
  // after each round).
  void check_limits(bool count_memory = true) {
    if (!stopping_.stopped_by_token() && count_memory) stopping_.past_memory(memory());
  }
  // Memory is counted every kMemoryEvery states expanded (a count walks
  // every structure; a state's successors add a few hundred bytes).
  static constexpr std::size_t kMemoryEvery = 16;

  // ---- Expanding: this rank's states of the level, at most round_ a round. ----

  // An allocation that fails here, or while a rank's messages are put
  // together or merged, stops this rank, out of memory, and so every rank
  // when they next agree on their status (on an overlapped level, within two
  // rounds), INCOMPLETE with this rank's reason.
  void expand_round() {
    auto* level = queued_.find(level_);
    if (level == nullptr) return;
    try {
      for (std::size_t n = 0; !level->empty() && n < round_ && !stopping_.stopped(); ++n) {
        const auto si = level->front();
        if (!expand(si)) break;
        visited_.taken(level_, si);  // its entry in the store goes with it
        level->pop_front();
        check_limits(n % kMemoryEvery == kMemoryEvery - 1);
        if (overlap_ && n % kNudgeEvery == kNudgeEvery - 1) nudge();
      }
    } catch (const std::bad_alloc&) {  // what the state being expanded sent, maybe a message in part, is taken back
      take_back();
      stopping_.out_of_memory();
    }
  }

  // Expands state si; returns false if an interrupt or the timeout cut it
  // short (a run of firings, or its successors): then what it sent is taken
  // back, and a resumed search expands it again. (Its races, found first,
  // are found again to the same effect.)
  bool expand(StateIndex si) {
    for (auto& c : senders_) c.mark();
    loopback_.mark();
    visited_.table().load(si, row_);
    const auto sleep = visited_.sleep(level_, si);
    const auto paths = visited_.paths(level_, si);
    if (x_.terminal(row_)) {
      findings_.terminal(codec_.unpack(row_), {si, level_}, paths, result_.counters);
      return true;
    }
    seen_.clear();
    x_.races(row_, findings_.race_flags(), seen_);
    for (const auto& r : seen_) findings_.race(r, {si, level_});
    std::uint64_t firings = 0;
    const auto pruned = x_.successors(row_, sleep, [&](const SuccessorSeen& s) {
      if (stopping_.stopped()) return;
      if (s.exceeds.valid()) return stopping_.at_bound(s.exceeds);
      send(si, &s.move, s.result, s.row, level_ + s.steps.size(), s.sleep, paths);
      firings += s.steps.size();
    });
    if (stopping_.stopped_by_token() && resumable(stopping_.why())) {
      take_back();
      return false;
    }
    result_.counters.transitions_pruned += pruned;
    result_.counters.firings += firings;
    return true;
  }
  // What the state being expanded sent.
  void take_back() {
    for (auto& c : senders_) c.take_back();
    loopback_.take_back();
  }

  // A successor for its owner: parent, move, result, level, paths, sleep set, state.
  void send(StateIndex parent, const Move* move, std::uint32_t result, std::span<const Code> row, std::uint64_t level,
            std::span<const Transition> sleep, PathCount paths) {
    const channel::Successor s{parent, move != nullptr ? *move : Move{}, result, level, paths};
    const auto to = size_ == 1 ? 0 : owner(canonical_.row(row), size_);
    if (to == static_cast<std::uint32_t>(rank_)) loopback_.send(s, sleep, row);
    else senders_[to].send(s, sleep, row);
  }

  // ---- Exchanging: every rank's successors to their owners, merged: its
  // own first, then the others' in rank order. ----

  void exchange() {
    std::vector<int> send_counts(size_), recv_counts(size_), send_at(size_), recv_at(size_);
    Bytes all;
    try {
      for (int r = 0; r < size_; ++r) {
        const auto& b = senders_[r].bytes();
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
    make_room(total);
    mpi([&] {
      MPI_Alltoallv(all.data(), send_counts.data(), send_at.data(), MPI_BYTE, in_.data(), recv_counts.data(), recv_at.data(),
                    MPI_BYTE, MPI_COMM_WORLD);
    });
    for (auto& c : senders_) c.bytes().clear();
    try {
      store_own();
      for (int r = 0; r < size_ && resumable(stopping_.why()); ++r) {
        if (r == rank_) continue;
        store_from(r, std::span(in_).subspan(recv_at[r], recv_counts[r]));
      }
    } catch (const std::bad_alloc&) {
      stopping_.out_of_memory();
    }
  }

  // Stores the successors from rank `from` (next(Arrived&) reads the next
  // one; false: none is left) in the order they were sent, each read kAhead
  // before it is stored: its index slot is fetched into the cache as it is
  // read, and the stored row that slot names halfway.
  template <class Next>
  void merge(std::uint32_t from, Next&& next) {
    std::size_t read = 0, stored = 0;
    const auto store = [&] {
      auto& a = arrived_[stored++ % kAhead];
      const Arrival how{a.s.parent == kNone ? kNone : from, a.s.parent, a.s.move, a.s.result};
      if (a.s.parent != kNone) ++result_.counters.transitions;
      if (const auto [i, fresh] = visited_.add(a.row, a.hash, how, a.s.level, a.sleep, a.s.paths); fresh) queued_[a.s.level].push_back(i);
      else ++result_.counters.states_matched;
      stopping_.past_states(visited_.size());  // this rank's alone passing --max-states stops the search
    };
    // After an interrupt or a timeout too: the round's states stay whole.
    while (resumable(stopping_.why())) {
      if (read - stored == kAhead) store();
      auto& a = arrived_[read % kAhead];
      if (!next(a)) break;
      a.hash = StateTable::hash(a.row);
      visited_.table().prefetch_slot(a.hash);
      if (++read - stored > kAhead / 2) visited_.table().prefetch_row(arrived_[(read - 1 - kAhead / 2) % kAhead].hash);
    }
    while (stored < read && resumable(stopping_.why())) store();
    if (!stopping_.stopped()) check_limits();
  }

  // This rank's status now.
  Status status() const {
    Status s{kNoLevel, 0, visited_.size(), static_cast<std::uint64_t>(stopping_.why()), rank_ == 0 && clock_ && clock_->due() ? 1U : 0U};
    if (const auto* states = queued_.find(level_); states != nullptr && !states->empty()) {
      s.next = level_;
    } else {
      s.next = queued_.next(level_ == kNoLevel ? 0 : level_ + 1);
    }
    if (const auto* states = queued_.find(s.next); states != nullptr) s.queued = states->size();
    return s;
  }

  // Every rank's status; returns the next level to expand (kNoLevel: the search is over).
  std::uint64_t agree_on_status() {
    const auto mine = status();
    std::vector<Status> all(static_cast<std::size_t>(size_));
    mpi([&] { MPI_Allgather(&mine, kStatusWords, MPI_UINT64_T, all.data(), kStatusWords, MPI_UINT64_T, MPI_COMM_WORLD); });
    std::uint64_t next = kNoLevel, states = 0;
    bool stopped = false;
    checkpoint_due_ = all[0].checkpoint != 0;
    whole_ = true;
    for (const auto& s : all) {
      next = std::min(next, s.next);
      states += s.states;
      stopped = stopped || s.stop != 0;
      whole_ = whole_ && resumable(static_cast<Stop>(s.stop));
    }
    widest_ = 0;
    for (const auto& s : all)
      if (s.next == next) widest_ = std::max(widest_, s.queued);
    stopped = stopped || stopping_.past_states(states);
    whole_ = whole_ && resumable(stopping_.why());
    if (stopped) {
      result_.complete = false;  // another rank's reason is gathered at the end
      return kNoLevel;
    }
    if (rank_ == 0) stopping_.progress(states, [&] { return memory(); });
    return next;
  }

  // ---- Overlapping: a round's exchange runs beside the next round's expansion. ----

  // Posts this round, then receives the round before it, while no rank stops
  // and none wants a checkpoint and some rank still holds states of the
  // level; otherwise receives this round too (nothing is in flight after it)
  // and agrees on the status as a round that does not overlap does. Every
  // rank decides on the same statuses, so all go on or pause together. A
  // state expanded in a round sends its successors to later levels only, so
  // the level's states are all there before it starts, and a rank that has
  // none left of it has none for good.
  //
  // A rank stores its own successors of a round after the others' of the
  // round before, so that the order of the stores (own of round 1, the
  // others' of round 1, own of round 2, ...) is that of rounds that do not
  // overlap, wherever the ranks pause: a checkpoint's pause, or a resumed
  // level that no longer overlaps, changes no witness.
  std::uint64_t overlapped_round() {
    post();
    const bool first = rounds_posted_ - rounds_heard_ < 2;  // the level's first round: none before it to hear
    const bool on = first || goes_on(receive());
    try {
      store_own();
    } catch (const std::bad_alloc&) {
      stopping_.out_of_memory();
    }
    if (on) return level_;
    receive();
    const auto next = agree_on_status();
    for (auto& p : posted_) delivered(p);
    return next;
  }

  // This round's successors on their way to their owners, each rank's with
  // this rank's status. The buffers are those of the round two before,
  // which the others receive in the round after it (delivered() waits for
  // that: a rank more than a round behind).
  void post() {
    auto& p = posted_[rounds_posted_++ % 2];
    delivered(p);
    p.status = status();
    for (int r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      auto& out = p.successors[r];
      out.swap(senders_[r].bytes());
      senders_[r].bytes().clear();
      report_.bytes_sent += out.size();
      if (out.size() > INT32_MAX) throw std::runtime_error("a round's messages pass 2 GiB");
      mpi([&] {
        MPI_Isend(&p.status, kStatusWords, MPI_UINT64_T, r, kStatusTag, MPI_COMM_WORLD, &p.requests[2 * r]);
        MPI_Isend(out.data(), static_cast<int>(out.size()), MPI_BYTE, r, kSuccessorsTag, MPI_COMM_WORLD, &p.requests[2 * r + 1]);
      });
    }
  }

  // The successors this rank sent itself since it last stored them.
  void store_own() {
    merge(static_cast<std::uint32_t>(rank_), [&](Arrived& a) { return loopback_.next(a.s, a.sleep, a.row); });
  }
  // The successors rank r sent this rank, as they came off the wire.
  void store_from(int r, std::span<const char> bytes) {
    const auto from = static_cast<std::uint32_t>(r);
    wire::Reader in(sem_, bytes);
    merge(from, [&](Arrived& a) { return receivers_[from].next(in, a.s, a.sleep, a.row); });
  }
  // in_ resized to n bytes for a message; where memory fails, the stop frees
  // the token's reserve: room to take the message, then stop.
  void make_room(std::size_t n) {
    try {
      in_.resize(n);
    } catch (const std::bad_alloc&) {
      stopping_.out_of_memory();
      in_.resize(n);
    }
  }

  // Lets MPI move the round posted last while this rank expands the next: a
  // transport that needs the sender's help to move a large message (a
  // network without a progress thread) gets it every kNudgeEvery states
  // expanded, not only at the round's end.
  static constexpr std::size_t kNudgeEvery = 256;
  void nudge() {
    if (rounds_posted_ == 0) return;
    auto& p = posted_[(rounds_posted_ - 1) % 2];
    int done = 0;
    mpi([&] { MPI_Testall(static_cast<int>(p.requests.size()), p.requests.data(), &done, MPI_STATUSES_IGNORE); });
  }

  // Waits until p's sends are complete: its buffers may be written again.
  void delivered(Posted& p) {
    mpi([&] { MPI_Waitall(static_cast<int>(p.requests.size()), p.requests.data(), MPI_STATUSES_IGNORE); });
  }

  // The oldest round in flight from every other rank, in rank order, its
  // successors stored; returns every rank's status of that round (this
  // rank's as it posted it).
  const std::vector<Status>& receive() {
    heard_[rank_] = posted_[rounds_heard_++ % 2].status;
    for (int r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      MPI_Message message;
      MPI_Status got;
      int n = 0;
      mpi([&] {
        MPI_Recv(&heard_[r], kStatusWords, MPI_UINT64_T, r, kStatusTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Mprobe(r, kSuccessorsTag, MPI_COMM_WORLD, &message, &got);
        MPI_Get_count(&got, MPI_BYTE, &n);
      });
      make_room(static_cast<std::size_t>(n));
      mpi([&] { MPI_Mrecv(in_.data(), n, MPI_BYTE, &message, MPI_STATUS_IGNORE); });
      report_.bytes_received += static_cast<std::size_t>(n);
      if (!resumable(stopping_.why())) continue;
      try {
        store_from(r, in_);
      } catch (const std::bad_alloc&) {
        stopping_.out_of_memory();
      }
    }
    return heard_;
  }

  // Whether the ranks go on with the level without pausing: by their
  // statuses of one round, none has stopped or wants a checkpoint, together
  // they are within --max-states, and one still holds states of the level.
  bool goes_on(const std::vector<Status>& all) {
    std::uint64_t states = 0;
    bool more = false;
    for (const auto& s : all) {
      if (s.stop != 0 || s.checkpoint != 0) return false;
      states += s.states;
      more = more || s.next == level_;
    }
    if (stopping_.past_states(states)) return false;
    if (rank_ == 0) stopping_.progress(states, [&] { return memory(); });
    return more;
  }

  // ---- Checkpoints (docs/checkpoints.md): a part per rank, in wire form. ----

  // The canonical bytes of row's state (wire.hpp), in state_bytes_.
  std::span<const char> canonical(std::span<const Code> row) {
    state_bytes_.clear();
    wire::Writer(sem_, state_bytes_).state(codec_.unpack(row));
    return state_bytes_;
  }

  // Between two rounds, every rank: its part of the next generation (its
  // counters; every state it stores, with its arrival; its unexpanded
  // states by level, with their path counts and sleep sets; its findings), then,
  // once every part is written, rank 0's manifest naming the generation,
  // and then the parts of the others go.
  void checkpoint() {
    Bytes body;
    wire::Writer w(sem_, body);
    for (const auto* v : summed(result_.counters)) w.u64(*v);
    w.u64(visited_.size());
    for (StateIndex i = 0; i < visited_.size(); ++i) {
      visited_.table().load(i, row_);
      stored_out(w, canonical(row_), canonical_.row(row_), visited_.arrival(i));
    }
    for (auto l = queued_.next(0); l != kNoLevel; l = queued_.next(l + 1)) {
      const auto& states = *queued_.find(l);
      for (std::size_t k = 0; k < states.size(); ++k) {
        const auto sleep = visited_.sleep(l, states[k]);
        w.u8(1), w.u64(l), w.u32(states[k]), w.u64(visited_.paths(l, states[k]));
        w.u32(static_cast<std::uint32_t>(sleep.size()));
        for (auto t : sleep) w.transition(t);
      }
    }
    w.u8(0);
    w.u64(findings_.outcomes().size());
    for (const auto& o : findings_.outcomes()) w.text(o.text), w.u32(o.first.state), w.u64(o.first.level), w.u64(o.paths);
    w.u64(findings_.races().size());
    for (const auto& [key, r] : findings_.races())
      w.transition(key.first), w.transition(key.second), w.u8(r.harmful ? 1 : 0), w.u32(r.at.state), w.u64(r.at.level);

    const auto next = generation_ + 1;
    const auto header = header_for(sem_, opts_, *checkpoints_, 1);
    together([&] {
      CheckpointOut part(part_path(*checkpoints_, opts_.por, next, static_cast<std::uint32_t>(rank_)));
      write_header(part, header);
      part.pod(static_cast<std::uint32_t>(rank_)), part.pod(static_cast<std::uint32_t>(size_)), part.pod(next);
      part.list(body);
      part.commit();
    });
    together([&] {
      if (rank_ != 0) return;
      CheckpointOut manifest(manifest_path(*checkpoints_, opts_.por));
      write_header(manifest, header);
      manifest.pod(static_cast<std::uint32_t>(size_)), manifest.pod(next);
      manifest.commit();
      remove_parts_but(*checkpoints_, opts_.por, next);
    });
    generation_ = next;
    clock_->written();
  }

  // Runs f on every rank, which may fail on some only (a file that cannot be
  // written or read, a part refused by the rank that reads it); if it fails
  // on any, it throws on every rank, with its own error or another rank's
  // failure, so that no rank waits for the others in MPI.
  template <class F>
  void together(F&& f) {
    std::string error;
    try {
      f();
    } catch (const CheckpointError& e) {
      error = e.what();
    } catch (const std::filesystem::filesystem_error& e) {
      error = e.what();
    }
    int ok = error.empty() ? 1 : 0, all = 0;
    mpi([&] { MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD); });
    if (all == 0) throw CheckpointError(error.empty() ? checkpoints_->dir + ": another rank failed at its checkpoint" : error);
  }

  // Part r of the `parts` of generation generation_, its header checked: its body.
  Bytes read_part(std::uint32_t r, std::uint32_t parts) {
    CheckpointIn in(part_path(*checkpoints_, opts_.por, generation_, r));
    read_header(in, header_for(sem_, opts_, *checkpoints_, 1));
    const auto rank = in.pod<std::uint32_t>(), ranks = in.pod<std::uint32_t>();
    const auto generation = in.pod<std::uint64_t>();
    if (rank != r || ranks != parts || generation != generation_)
      throw CheckpointError(in.path() + ": corrupted: the part of rank " + std::to_string(rank) + " of " + std::to_string(ranks) +
                            " in generation " + std::to_string(generation));
    auto body = in.list<char>(std::uint64_t{1} << 40);
    if (!in.at_end()) throw CheckpointError(in.path() + ": corrupted: bytes after its end");
    return body;
  }

  // From the generation the manifest names, of any number of ranks: each
  // state goes to the rank its canonical hash (written beside it) names
  // now, numbered there in the order of the parts, and every part is read
  // twice: first where each state goes, then this rank's states, their
  // arrivals renumbered, and its findings (those whose witness state it now
  // holds), and the counters of the parts r with r % ranks == this rank (the
  // report adds every rank's up).
  void restore(const std::string& manifest) {
    try {
      CheckpointIn in(manifest);
      read_header(in, header_for(sem_, opts_, *checkpoints_, 1));
      const auto parts = in.pod<std::uint32_t>();
      generation_ = in.pod<std::uint64_t>();
      if (parts == 0 || parts > (1U << 20) || generation_ == 0 || !in.at_end())
        throw CheckpointError(manifest + ": corrupted: " + std::to_string(parts) + " parts");
      std::vector<std::vector<std::pair<std::uint32_t, StateIndex>>> where(parts);  // by part and index: rank, index
      std::vector<StateIndex> numbered(static_cast<std::size_t>(size_));
      for (std::uint32_t r = 0; r < parts; ++r) {
        const auto body = read_part(r, parts);
        wire::Reader part(sem_, body);
        part.take(summed(result_.counters).size() * sizeof(std::uint64_t));
        for (auto n = part.u64(); n > 0; --n) {
          const auto to = owner(stored_in(part).hash, size_);
          where[r].emplace_back(to, numbered[to]++);
        }
      }
      const auto me = static_cast<std::uint32_t>(rank_);
      std::vector<std::pair<Seen, RaceSeen>> races;
      for (std::uint32_t r = 0; r < parts; ++r) {
        const auto body = read_part(r, parts);
        wire::Reader part(sem_, body, &tensors_);
        const auto corrupted = [&](const char* what) {
          return CheckpointError(part_path(*checkpoints_, opts_.por, generation_, r) + ": corrupted: " + what);
        };
        for (auto* v : summed(result_.counters))
          if (const auto value = part.u64(); r % static_cast<std::uint32_t>(size_) == me) *v = saturating_add(*v, value);
        const auto n = part.u64();
        if (n != where[r].size()) throw corrupted("its states");
        for (std::uint64_t i = 0; i < n; ++i) {
          auto [bytes, hash, how] = stored_in(part);
          if (where[r][i].first != me) continue;
          if (how.parent_rank != kNone) {
            if (how.parent_rank >= parts || how.parent >= where[how.parent_rank].size()) throw corrupted("an arrival");
            std::tie(how.parent_rank, how.parent) = where[how.parent_rank][how.parent];
          }
          codec_.pack(wire::Reader(sem_, bytes, &tensors_).state(), row_);
          if (canonical_.row(row_) != hash) throw corrupted("a state's hash");  // it would be on the wrong rank
          if (visited_.store(row_, StateTable::hash(row_), how) != std::pair{where[r][i].second, true})
            throw corrupted("a state stored twice");
        }
        SleepSet sleep;
        while (part.u8() != 0) {
          const auto level = part.u64();
          const auto state = part.u32();
          const auto paths = part.u64();
          sleep.resize(part.u32());
          for (auto& t : sleep) t = part.transition();
          if (state >= n) throw corrupted("an unexpanded state");
          if (where[r][state].first != me) continue;
          std::sort(sleep.begin(), sleep.end());  // in this rank's order of contexts
          visited_.queue(where[r][state].second, level, sleep, paths);
          queued_[level].push_back(where[r][state].second);
        }
        for (auto k = part.u64(); k > 0; --k) {
          auto text = part.text();
          const auto state = part.u32();
          const auto level = part.u64();
          const auto paths = part.u64();
          if (state >= n) throw corrupted("an outcome");
          if (where[r][state].first == me) findings_.outcome(std::move(text), {where[r][state].second, level}, paths);
        }
        for (auto k = part.u64(); k > 0; --k) {
          const auto a = part.transition(), b = part.transition();
          const bool harmful = part.u8() != 0;
          const auto state = part.u32();
          const auto level = part.u64();
          if (state >= n) throw corrupted("a race");
          if (where[r][state].first == me) races.push_back({{where[r][state].second, level}, {a, b, harmful}});
        }
        if (!part.done()) throw corrupted("bytes after its end");
      }
      // As they were found: by level (findings.hpp keeps the first, and a harmful one over a benign one).
      std::stable_sort(races.begin(), races.end(), [](const auto& x, const auto& y) { return x.first.level < y.first.level; });
      for (const auto& [at, seen] : races) findings_.race(seen, at);
      resumed_ = true;
    } catch (const CheckpointError&) {
      throw;
    } catch (const std::runtime_error& e) {  // the wire's: a part that passed its checksum but reads wrong
      throw CheckpointError(checkpoints_->dir + ": corrupted: " + e.what());
    }
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
    x_.reduction.uncut();  // follow() replays settles, which the deadline, passed by then, must not cut
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
    for (auto v : {report_.states, report_.bytes_sent, report_.bytes_received, report_.memory_bytes, report_.store_bytes}) w.u64(v);
    for (const auto* v : summed(result_.counters)) w.u64(*v);
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
      for (auto* v : summed(sum)) *v = saturating_add(*v, in.u64());
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
            w.u32(c.rank), w.u32(c.state);
            move_out(w, c.has_move ? &c.move : nullptr);
            w.u32(c.result);
          }
      }
      ask = broadcast(std::move(ask));
      if (ask.empty()) return;
      Bytes answer;
      wire::Writer w(sem_, answer);
      for (wire::Reader in(sem_, ask); !in.done();) {
        const auto r = in.u32(), state = in.u32();
        const auto move = move_in(in);
        const auto result = in.u32();
        if (r != static_cast<std::uint32_t>(rank_)) continue;
        if (move.t.node.valid()) {
          visited_.table().load(state, row_);
          x_.reduction.fire(row_, move, x_.landings);
          w.steps(x_.landings.steps(result));
        }
        const auto& a = visited_.arrival(state);
        w.u32(a.parent_rank), w.u32(a.parent);
        move_out(w, a.parent == kNone ? nullptr : &a.move);
        w.u32(a.result);
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
        c.move = move_in(in);
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

Report explore(const Semantics& sem, const ExploreOptions& options, const Checkpoints* checkpoints, std::size_t round) {
  try {
    return Search(sem, options, checkpoints, round).run();
  } catch (const CheckpointError& e) {  // on every rank alike (together())
    throw InputError("", checkpoints->resume ? "--resume" : "--checkpoint", "", e.what());
  } catch (const std::filesystem::filesystem_error& e) {
    throw InputError("", "--checkpoint", "", e.what());
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
