#include "explorer/explore.hpp"

#include "explorer/checkpoint.hpp"
#include "explorer/expansion.hpp"
#include "explorer/findings.hpp"
#include "explorer/levels.hpp"
#include "explorer/memory_gauge.hpp"
#include "explorer/recent_arrivals.hpp"
#include "explorer/shards.hpp"
#include "explorer/stopping.hpp"
#include "explorer/team.hpp"
#include "semantics/diagnostic.hpp"
#include "support/prefetch.hpp"

#include <algorithm>
#include <atomic>
#include <deque>
#include <bit>
#include <cassert>
#include <exception>
#include <filesystem>
#include <memory>
#include <new>
#include <optional>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace tfsem::explorer {

namespace {

// How a state was first reached is its parent alone, 4 bytes for every
// stored state; the move is found again when a witness is rebuilt (path_to).
using Parent = StateIndex;
constexpr Parent kNoParent = UINT32_MAX;

// What expanding a block of states found.
struct Batch {
  struct Expanded {
    StateIndex state;
    bool terminal;
    std::uint64_t pruned;
    std::uint32_t races_end, successors_end;
  };
  struct Successor {
    Parent parent;
    std::uint64_t hash;
    PathCount paths;  // the behaviours reaching its parent
    std::uint32_t rows_end, sleep_end, steps_end;
    FrameId exceeds;  // it would start an iteration past --max-iterations
  };
  std::vector<Expanded> states;
  std::vector<RaceSeen> races;
  std::vector<Successor> successors;
  // Over the successors: the longest row, the most firings, and the first
  // that would pass a bound (kNone when none would).
  static constexpr std::uint32_t kNone = UINT32_MAX;
  std::uint32_t widest = 0, longest = 0, first_exceeding = kNone;
  Row rows;       // each successor's, one after the other
  SleepSet sleep;  // each successor's, one after the other
  Schedule steps;  // each successor's firings, one after the other
  // The shard each successor goes to, and the successors' indices grouped by
  // shard, in order within a group; by_shard[shard_end[s - 1], shard_end[s])
  // is shard s's.
  std::vector<std::uint8_t> shard;
  std::vector<std::uint32_t> by_shard, shard_end;
  void clear() {
    states.clear(), races.clear(), successors.clear(), rows.clear(), sleep.clear(), steps.clear();
    widest = longest = 0;
    first_exceeding = kNone;
  }
  [[nodiscard]] std::uint32_t rows_begin(std::uint32_t k) const { return k ? successors[k - 1].rows_end : 0; }
  [[nodiscard]] std::uint32_t sleep_begin(std::uint32_t k) const { return k ? successors[k - 1].sleep_end : 0; }
  [[nodiscard]] std::uint32_t steps_begin(std::uint32_t k) const { return k ? successors[k - 1].steps_end : 0; }
  [[nodiscard]] std::uint32_t shard_begin(unsigned s) const { return s ? shard_end[s - 1] : 0; }
  [[nodiscard]] std::span<const Step> steps_of(std::uint32_t k) const {
    return {steps.data() + steps_begin(k), steps.data() + successors[k].steps_end};
  }
  [[nodiscard]] std::span<const Code> row_of(std::uint32_t k) const {
    return {rows.data() + rows_begin(k), rows.data() + successors[k].rows_end};
  }
  [[nodiscard]] std::span<const Transition> sleep_of(std::uint32_t k) const {
    return {sleep.data() + sleep_begin(k), sleep.data() + successors[k].sleep_end};
  }
  // The batch is reused chunk after chunk, and other threads read it (the
  // merges, the report): the lines its next n successors, rows `width` codes
  // wide, will take are fetched for writing ahead, rather than each store
  // waiting for another core to give its copy up (docs/explorer.md).
  void write_ahead(std::size_t n, std::size_t width) {
    ahead_.rows(rows, n * width), ahead_.successors(successors, n), ahead_.sleep(sleep, n), ahead_.steps(steps, n);
    ahead_.states(states, 2);
  }
  // Groups the successors by shard_of(hash), below `shards` (at most 64; a counting sort, stable).
  template <class ShardOf>
  void group(unsigned shards, ShardOf shard_of) {
    shard_end.assign(shards, 0);
    shard.resize(successors.size());
    for (std::uint32_t k = 0; k < successors.size(); ++k) {
      shard[k] = static_cast<std::uint8_t>(shard_of(successors[k].hash));
      ++shard_end[shard[k]];
    }
    std::uint32_t sum = 0;
    for (auto& e : shard_end) sum += std::exchange(e, sum);  // each group's start
    by_shard.resize(successors.size());
    for (std::uint32_t k = 0; k < successors.size(); ++k) by_shard[shard_end[shard[k]]++] = k;
  }

 private:
  struct {
    tfsem::WriteAhead<Code> rows;
    tfsem::WriteAhead<Successor> successors;
    tfsem::WriteAhead<Transition> sleep;
    tfsem::WriteAhead<Step> steps;
    tfsem::WriteAhead<Expanded> states;
  } ahead_;
};

// A chunk of a bucket: its states' rows, sleep sets and path counts, copied
// out of the store before it is expanded (expanding reads nothing that
// merging writes), and what expanding its blocks found.
struct Chunk {
  static constexpr std::size_t kBlock = 64, kStates = 64 * kBlock;
  std::vector<StateIndex> states;
  std::size_t width = 0;  // of every row: the widest stored when the chunk was taken out
  Row rows;
  std::vector<SleepSet> sleep = std::vector<SleepSet>(kStates);
  std::vector<PathCount> paths = std::vector<PathCount>(kStates);
  std::vector<Batch> batches = std::vector<Batch>(kStates / kBlock);
  [[nodiscard]] std::size_t blocks() const { return (states.size() + kBlock - 1) / kBlock; }
  [[nodiscard]] std::span<const Code> row(std::size_t k) const { return {rows.data() + k * width, width}; }
  [[nodiscard]] std::span<Code> row(std::size_t k) { return {rows.data() + k * width, width}; }
  // One past block b's last state.
  [[nodiscard]] std::size_t block_end(std::size_t b) const { return std::min(states.size(), (b + 1) * kBlock); }
  // Brings in what expanding state k, the next in its block, reads, which
  // take_out may have written on another core: its row, path count and sleep
  // set (whose vector came in with the state before it), and the vector of
  // the state after it.
  void prefetch(std::size_t k) const {
    const auto end = block_end(k / kBlock);
    if (k >= end) return;
    tfsem::prefetch_lines(row(k));
    tfsem::prefetch(&paths[k]);
    tfsem::prefetch_lines(std::span<const Transition>(sleep[k]));
    if (k + 1 < end) tfsem::prefetch(&sleep[k + 1]);
  }
};

// Where the merge of a chunk stops: the first successor, in order, that would
// pass a bound (then the search stops there), or the end.
struct Cut {
  std::size_t block = 0;
  std::uint32_t successor = 0;
  FrameId exceeds;
  [[nodiscard]] bool before(std::size_t b, std::uint32_t k) const { return b < block || (b == block && k < successor); }
};

// One shard per thread (a power of two). A thread that ends its merge
// before another takes the step's expansions, so no thread waits for a
// larger shard, and more shards than threads would only add the work every
// shard costs of its own (its dictionaries, its layouts, its memo of recent
// arrivals, its data moving between cores). Fewer shards than threads would
// leave the merge, the step's critical path, to some threads alone, which
// the searches whose merge is most of the work wait for (docs/explorer.md,
// "Shards").
unsigned shards_for(unsigned threads) { return std::min(64U, std::bit_ceil(std::max(1U, threads))); }

// States are expanded in order of how many firings reach them (every path to a
// state fires the same nodes), so every arrival at a state, with its path
// count and sleep set, is known before the state is expanded. A bucket is
// taken in chunks. Every thread takes part in each step: the shards of the
// visited store (shards.hpp) merging one chunk's successors, then the blocks
// of the next chunk to expand. Between steps, one thread reports the merged
// chunk in order, then every thread takes out the one after. Each arrival keeps its position
// in the order of the chunk, so the result does not depend on the number of threads.
// What the report finds and when the search stops are findings.hpp's and
// stopping.hpp's, as in the distributed search. Between one chunk's report
// and the next chunk's merge, what the search has done is whole: the
// checkpoints (checkpoint.hpp) are written there.
class Search {
 public:
  // With `checkpoints` (null: none), `shards` is the checkpoint's when resuming.
  Search(const Semantics& sem, const ExploreOptions& opts, unsigned shards, const Checkpoints* checkpoints)
      : sem_(sem), opts_(opts), codec_(sem), visited_(codec_.width(), shards), recent_(visited_.shards()),
        shard_arrivals_(visited_.shards()), findings_(sem), stopping_(sem, opts), team_(std::max(1U, opts.threads)),
        checkpoints_(checkpoints) {
    const auto threads = std::max(1U, opts.threads);
    for (unsigned t = 0; t < threads; ++t)
      workers_.push_back(std::make_unique<Expander>(sem, codec_, opts.por, opts.limits));
    if (checkpoints_ != nullptr) clock_.emplace(checkpoints_->every_s);
  }

  // Continues from a checkpoint, its header read: in the order checkpoint() writes.
  void restore(CheckpointIn& in) {
    restore_contexts(in, sem_.contexts());
    codec_.restore(in);
    visited_.restore(in);
    start_depth_ = in.pod<std::uint64_t>();
    read_levels(in, 16, [&](std::uint64_t l) {  // a number and a list
      auto& bucket = levels_[l];
      in.list_into(bucket);
      for (const auto i : bucket)
        if (!visited_.queued(l, i)) throw CheckpointError(in.path() + ": corrupted: a queued state");
    });
    result_.counters = in.pod<Counters>();
    findings_.restore(in);
    if (!in.at_end()) throw CheckpointError(in.path() + ": corrupted: bytes after its end");
    resumed_ = true;
  }

  Result run() {
    stopping_.start();
    result_.por = opts_.por;
    try {
      search();
    } catch (const std::bad_alloc&) {
      stopping_.out_of_memory();  // what the chunks reported before stays found
    }
    stopping_.into(result_);
    workers_[0]->reduction.uncut();  // path_to replays settles
    for (const auto& o : findings_.outcomes()) {
      auto& outcome = result_.outcomes.emplace_back(outcome_of(sem_, state_at(o.first.state)));
      outcome.paths = o.paths;
      outcome.witness = path_to(o.first.state);
    }
    for (const auto& [key, race] : findings_.races())
      result_.races.push_back(race_of(sem_, key.first, key.second, race.harmful, path_to(race.at.state), state_at(race.at.state).path));
    result_.counters.states_stored = visited_.size();
    result_.store_bytes = visited_.bytes();
    result_.seconds = stopping_.elapsed();
    result_.memory_bytes = std::max(memory(), gauge_.peak());
    return std::move(result_);  // the witnesses may be a whole loop's firings: moved, not copied
  }

 private:
  const Semantics& sem_;
  const ExploreOptions& opts_;
  Codec codec_;
  ShardedVisited<Parent> visited_;
  std::vector<RecentArrivals> recent_;  // by shard: the arrivals of the chunk being merged
  // By shard: its arrivals in the chunk being merged, in order, as (batch,
  // successor), each with what its merge found, which the report reads. Kept
  // apart from the batches, which every shard's merge reads, and each shard's
  // list in cache lines of its own: a result written beside another shard's
  // would pass the line between their cores (docs/explorer.md).
  struct Arrival {
    std::uint32_t batch, successor;
    StateIndex to = 0;        // the state it reached
    std::uint32_t level = 0;  // that state's level
    bool fresh = false;       // whether that state is new
  };
  struct alignas(64) ShardArrivals {
    std::vector<Arrival> list;
    tfsem::WriteAhead<Arrival> ahead;  // the report, on another thread, reads the list
  };
  std::vector<ShardArrivals> shard_arrivals_;
  Findings findings_;
  Stopping stopping_;
  std::vector<std::unique_ptr<Expander>> workers_;  // workers_[t] is team thread t's (0: the calling thread)
  Team team_;
  Chunk chunks_[2];  // one being merged while the other is expanded
  // The unexpanded states by level, in the order they were first reached:
  // new states are queued as their chunk is reported, so in the order one
  // thread would have merged their arrivals, whatever the thread count. A
  // deque: the level being filled grows block by block, never copied.
  using Bucket = std::deque<StateIndex>;  // a level of StateLists
  StateLists levels_;
  Bucket searching_;  // the bucket being searched, taken out of levels_
  Row initial_row_;
  Schedule initial_steps_;  // the settling firings before the first stored state
  // For the observer: each state's number, in the order the states were first reached.
  std::unordered_map<StateIndex, std::uint32_t> numbers_;
  Result result_;
  MemoryGauge gauge_;
  const Checkpoints* checkpoints_;
  std::optional<CheckpointClock> clock_;  // with checkpoints
  bool resumed_ = false;
  std::size_t start_depth_ = 0;  // the level a resumed search continues at

  void search() {
    if (resumed_) {
      workers_[0]->initial(initial_row_, initial_steps_);  // for the witnesses (path_to)
      // A checkpoint written as a level's last chunk ended holds that level's
      // path counts and sleep sets, and no bucket for it: nothing is left of it to expand.
      if (levels_.find(start_depth_) == nullptr) drop_level(start_depth_);
    } else if (const auto exceeds = workers_[0]->initial(initial_row_, initial_steps_); exceeds.valid()) {
      stopping_.at_bound(exceeds);
    } else {
      const auto level = initial_steps_.size();
      queue(level, visited_.add(initial_row_, stored_hash(initial_row_, level), kNoParent, level, {}, 1).first);
      result_.counters.firings = initial_steps_.size();
    }
    const bool left = !levels_.empty();
    auto done = start_depth_;  // past the last level searched
    for (auto depth = levels_.next(done); depth != kNoLevel && !stopping_.stopped(); depth = levels_.next(done)) {
      searching_ = std::move(*levels_.find(depth));
      levels_.erase(depth);
      search_bucket(searching_, depth);
      drop_level(depth);
      done = depth + 1;
    }
    if (!stopping_.stopped() && (left || !resumed_)) checkpoint(done);
  }

  // Level `depth` has been expanded, as has every level before it: the store
  // lets go of its path counts and sleep sets, and of its index.
  void drop_level(std::size_t depth) {
    visited_.drop_level(depth);
    visited_.drop_level_index(depth);
  }

  // The search's checkpoint, if it writes them: at level `depth`, what is
  // left of its bucket (null: nothing), the levels past it queued, those
  // before it done.
  void checkpoint(std::size_t depth, const Bucket* bucket = nullptr) {
    if (checkpoints_ == nullptr) return;
    CheckpointOut out(checkpoint_path(*checkpoints_, opts_.por));
    write_header(out, header_for(sem_, opts_, *checkpoints_, visited_.shards()));
    save_contexts(out, sem_.contexts());
    codec_.save(out);
    visited_.save(out);
    out.pod<std::uint64_t>(depth);
    const bool rest = bucket != nullptr && !bucket->empty();
    out.pod<std::uint64_t>(levels_.size() + (rest ? 1 : 0));
    if (rest) {  // the bucket being searched, taken from levels_, before the levels past it
      out.pod<std::uint64_t>(depth);
      out.list(*bucket);
    }
    levels_.each([&](std::size_t l, const Bucket& queued) {
      out.pod<std::uint64_t>(l);
      out.list(queued);
    });
    out.pod(result_.counters);
    findings_.save(out);
    out.commit();
    clock_->written();
  }

  // The search stopped before what is left of the bucket: a checkpoint,
  // unless at a bound (resuming would stop there again).
  void stopped_at(std::size_t depth, const Bucket& bucket) {
    if (stopping_.why() != Stop::bound) checkpoint(depth, &bucket);
  }

  // The search's own count of its largest structures (between phases).
  std::uint64_t counted() const {
    std::uint64_t firings = 0;
    for (const auto& w : workers_) firings += w->firings.bytes();
    const auto queued = state_lists_bytes(levels_) + deque_bytes<StateIndex>(searching_.size());
    return visited_.bytes() + queued + recent_.size() * RecentArrivals::bytes() + codec_.bytes() + firings + findings_.bytes();
  }
  // The memory --max-memory limits: the process's, as the gauge reads it.
  std::uint64_t memory() { return gauge_.bytes(counted()); }

  // After each chunk: the stop token, --max-states (--max-memory is looked
  // at before the chunk is merged: room_for).
  bool within_limits() { return !stopping_.stopped_by_token() && !stopping_.past_states(visited_.size()); }

  // The states of the next chunk: fewer as --max-states comes near, so that
  // the search stops within two blocks of states past it (it looks after each chunk).
  std::size_t chunk_size() const {
    const auto stored = visited_.size(), max = opts_.limits.max_states;
    return stored >= max ? Chunk::kBlock : std::clamp<std::size_t>(max - stored, Chunk::kBlock, Chunk::kStates);
  }

  // Runs task(worker, k) for every k below n, on every thread (this one
  // included), each k once; rethrows the first error.
  template <class Task>
  void parallel(std::size_t n, Task&& task) {
    std::atomic<std::size_t> next{0};
    std::vector<std::exception_ptr> errors(workers_.size());
    const std::function<void(unsigned)> work = [&](unsigned t) {
      try {
        for (std::size_t k; (k = next.fetch_add(1)) < n;) task(*workers_[t], k);
      } catch (...) {
        errors[t] = std::current_exception();
        next.store(n);
      }
    };
    team_.run(work);
    for (const auto& e : errors)
      if (e) std::rethrow_exception(e);
  }

  // Chunk k of the bucket is taken out, then expanded while chunk k - 1 is
  // merged, then merged while chunk k + 1 is expanded, then reported.
  // A chunk reported lets its states go, from the front of the bucket and
  // from the store's level: what is left of the bucket is what a stop or a
  // checkpoint leaves to expand, and the widest level lets go of its
  // entries as it is expanded rather than after.
  void search_bucket(Bucket& bucket, std::size_t depth) {
    std::size_t taken = 0;  // the states at the bucket's front taken out into a chunk
    auto take = [&](Chunk& c) {
      const auto n = std::min(chunk_size(), bucket.size() - taken);
      take_out(c, bucket, taken, n, depth);
      taken += n;
    };
    Chunk* now = &chunks_[0];
    Chunk* next = &chunks_[1];
    take(*now);
    step(nullptr, {}, now, depth);
    if (!within_limits()) return stopped_at(depth, bucket);
    while (!now->states.empty()) {
      const auto cut = cut_of(*now);
      if (!room_for(*now, cut, depth)) return stopped_at(depth, bucket);
      if (taken < bucket.size()) take(*next);
      else next->states.clear();
      step(now, cut, next, depth);
      report(*now, cut, depth);
      if (cut.exceeds.valid()) return stopping_.at_bound(cut.exceeds);
      visited_.taken(depth, now->states);
      bucket.erase(bucket.begin(), bucket.begin() + static_cast<std::ptrdiff_t>(now->states.size()));
      taken -= now->states.size();
      if (!within_limits()) return stopped_at(depth, bucket);
      stopping_.progress(visited_.size(), [&] { return memory(); });
      if (clock_ && clock_->due()) checkpoint(depth, &bucket);  // next, expanded, is merged after it
      std::swap(now, next);
    }
  }

  // One step on every thread: the shards of `merging` (null: none) merged
  // up to the cut, and the blocks of `expanding` expanded. Merging comes
  // first: it is what the next step waits for.
  void step(Chunk* merging, const Cut& cut, Chunk* expanding, std::size_t depth) {
    const std::size_t shards = merging != nullptr ? visited_.shards() : 0;
    parallel(shards + expanding->blocks(), [&](Expander& w, std::size_t task) {
      if (task < shards) return merge(*merging, static_cast<unsigned>(task), cut, depth);
      const auto b = task - shards;
      auto& batch = expanding->batches[b];
      batch.clear();
      // A stop leaves the rest unexpanded: the chunk is not merged (within_limits).
      for (auto k = b * Chunk::kBlock; k < expanding->block_end(b) && !token_stopped(); ++k)
        expand(w, *expanding, k, batch, depth);
      batch.group(visited_.shards(), [&](std::uint64_t h) { return visited_.shard_of(h); });
    });
  }

  [[nodiscard]] bool token_stopped() const { return opts_.limits.stop != nullptr && opts_.limits.stop->stopped(); }

  // ---- Expanding: reads only its chunk (and race flags), writes only the chunk's batches. ----

  // Takes n of the bucket's states from `first` on out of the store, block
  // by block on every thread, while nothing merges (the store is only
  // read): their rows (copied), sleep sets (copied: nothing arrives at them
  // any more) and path counts are final.
  void take_out(Chunk& c, const Bucket& bucket, std::size_t first, std::size_t n, std::size_t depth) {
    c.width = visited_.width();
    c.states.assign(bucket.begin() + static_cast<std::ptrdiff_t>(first), bucket.begin() + static_cast<std::ptrdiff_t>(first + n));
    const auto& states = c.states;
    c.rows.resize(states.size() * c.width);
    parallel(c.blocks(), [&](Expander&, std::size_t b) {
      for (auto k = b * Chunk::kBlock; k < c.block_end(b); ++k) {
        if (k + kAheadStates < c.block_end(b)) {  // the stored row, and where it goes (another core may hold it)
          tfsem::prefetch_lines<tfsem::prefetch_for_write>(std::as_const(c).row(k + kAheadStates));
          visited_.prefetch_stored(states[k + kAheadStates]);
        }
        visited_.load(states[k], c.row(k).data(), c.width);
        const auto sleep = visited_.sleep(depth, states[k]);
        c.sleep[k].assign(sleep.begin(), sleep.end());
        c.paths[k] = visited_.paths(depth, states[k]);
      }
    });
  }

  // How far ahead expanding fetches its batch's lines, in successors, and
  // take_out its chunk's lines and the stored rows it reads, in states.
  static constexpr std::size_t kAheadSuccessors = 16, kAheadStates = 2;
  // A row's hash as the store is searched with it: at the row's level.
  static std::uint64_t stored_hash(std::span<const Code> row, std::size_t level) {
    return StateTable::at_level(StateTable::hash(row), level);
  }
  void expand(Expander& w, const Chunk& c, std::size_t k, Batch& out, std::size_t depth) {
    const auto si = c.states[k];
    const auto row = c.row(k);
    out.write_ahead(kAheadSuccessors, c.width);
    c.prefetch(k + 1);
    auto& expanded = out.states.emplace_back(Batch::Expanded{si, false, 0, 0, 0});
    expanded.terminal = w.terminal(row);
    if (!expanded.terminal) {
      w.races(row, findings_.race_flags(), out.races);
      expanded.pruned = w.successors(row, c.sleep[k], [&](const SuccessorSeen& s) {
        out.sleep.insert(out.sleep.end(), s.sleep.begin(), s.sleep.end());
        out.rows.insert(out.rows.end(), s.row.begin(), s.row.end());
        out.steps.insert(out.steps.end(), s.steps.begin(), s.steps.end());
        out.successors.push_back({si, stored_hash(s.row, depth + s.steps.size()), c.paths[k],
                                  static_cast<std::uint32_t>(out.rows.size()), static_cast<std::uint32_t>(out.sleep.size()),
                                  static_cast<std::uint32_t>(out.steps.size()), s.exceeds});
        out.widest = std::max(out.widest, static_cast<std::uint32_t>(s.row.size()));
        out.longest = std::max(out.longest, static_cast<std::uint32_t>(s.steps.size()));
        if (s.exceeds.valid() && out.first_exceeding == Batch::kNone)
          out.first_exceeding = static_cast<std::uint32_t>(out.successors.size() - 1);
      });
    }
    expanded.races_end = static_cast<std::uint32_t>(out.races.size());
    expanded.successors_end = static_cast<std::uint32_t>(out.successors.size());
  }

  // ---- Merging: each shard by one thread, in the order of the chunk. ----

  static Cut cut_of(const Chunk& c) {
    for (std::size_t b = 0; b < c.blocks(); ++b) {
      const auto& batch = c.batches[b];
      if (const auto k = batch.first_exceeding; k != Batch::kNone) return {b, k, batch.successors[k].exceeds};
    }
    return {c.blocks(), 0, {}};
  }

  // Whether merging the chunk's successors before the cut stays within
  // --max-memory, counted before they are added: a structure that grows holds
  // its old storage and its new one at once.
  bool room_for(const Chunk& c, const Cut& cut, std::size_t depth) {
    std::vector<std::size_t> arrivals(visited_.shards(), 0);
    std::size_t width = 0, steps = 0;  // the longest row, the most firings of a successor
    for (std::size_t b = 0; b < cut.block; ++b) {  // the blocks before the cut's (all of them without a cut), whole
      const auto& batch = c.batches[b];
      for (unsigned s = 0; s < arrivals.size(); ++s) arrivals[s] += batch.shard_end[s] - batch.shard_begin(s);
      width = std::max<std::size_t>(width, batch.widest);
      steps = std::max<std::size_t>(steps, batch.longest);
    }
    if (cut.block < c.blocks()) {  // the cut's block, up to the cut
      const auto b = cut.block;
      const auto& batch = c.batches[b];
      for (std::uint32_t k = 0; k < batch.successors.size() && cut.before(b, k); ++k) {
        const auto& s = batch.successors[k];
        ++arrivals[visited_.shard_of(s.hash)];
        width = std::max<std::size_t>(width, batch.row_of(k).size());
        steps = std::max<std::size_t>(steps, batch.steps_of(k).size());
      }
    }
    auto growth = visited_.growth_bytes(arrivals, width, depth + 1, depth + steps);
    const auto n = std::accumulate(arrivals.begin(), arrivals.end(), std::size_t{0});
    // The queues: n states, and new levels (at most one a firing).
    growth += deque_bytes<StateIndex>(n) + std::min(n, steps) * (StateLists::kNodeBytes + deque_bytes<StateIndex>(0));
    return !stopping_.past_memory(memory() + growth);
  }

  // Shard s's arrivals before the cut, in order: batch by batch, each
  // batch's group for the shard, listed first. Each one is fetched 3 *
  // kAhead arrivals before it is merged (another thread may have expanded
  // it), its index slot 2 * kAhead before, and kAhead before: its row (all
  // of it: a row of lost-update-8 spans five or six cache lines), the
  // stored row its slot names, its memo entry. The list lets the prefetches
  // run on across the batches' boundaries (with two threads a group is
  // about 128 arrivals). The list's own lines are fetched for writing
  // kAheadArrivals ahead as it is built. An arrival at a state an earlier
  // one of the chunk reached skips the table (recent_arrivals.hpp). Where
  // the store far exceeds the cache (lost-update-9), reading a slot fetched
  // 16 arrivals before still waited on it; 32 before, it no longer does.
  static constexpr std::size_t kAhead = 16, kAheadArrivals = 16;
  void merge(Chunk& c, unsigned s, const Cut& cut, std::size_t depth) {
    auto& recent = recent_[s];
    recent.next_chunk();
    auto& [mine, write_ahead] = shard_arrivals_[s];
    mine.clear();
    for (std::size_t b = 0; b < c.blocks() && b <= cut.block; ++b) {
      const auto& batch = c.batches[b];
      for (auto g = batch.shard_begin(s); g < batch.shard_end[s] && cut.before(b, batch.by_shard[g]); ++g) {
        write_ahead(mine, kAheadArrivals);
        mine.push_back({.batch = static_cast<std::uint32_t>(b), .successor = batch.by_shard[g]});
      }
    }
    const auto successor = [&](const Arrival& a) -> const Batch::Successor& { return c.batches[a.batch].successors[a.successor]; };
    for (std::size_t i = 0; i < mine.size(); ++i) {
      if (i + 3 * kAhead < mine.size()) tfsem::prefetch(&successor(mine[i + 3 * kAhead]));
      if (i + 2 * kAhead < mine.size()) visited_.prefetch_slot(successor(mine[i + 2 * kAhead]).hash);
      if (i + kAhead < mine.size()) {
        const auto ahead = mine[i + kAhead];
        const auto& batch = c.batches[ahead.batch];
        visited_.prefetch_row(successor(ahead).hash);
        recent.prefetch(successor(ahead).hash);
        tfsem::prefetch_lines(batch.row_of(ahead.successor));
      }
      auto& a = mine[i];
      const auto& batch = c.batches[a.batch];
      const auto& x = batch.successors[a.successor];
      const auto row = batch.row_of(a.successor);
      const auto sleep = batch.sleep_of(a.successor);
      const auto level = depth + batch.steps_of(a.successor).size();
      a.level = static_cast<std::uint32_t>(level);
      if (const auto known = recent.find(x.hash, row)) {
        visited_.again(*known, level, sleep, x.paths);
        a.to = *known;
        continue;
      }
      std::tie(a.to, a.fresh) = visited_.add(row, x.hash, x.parent, level, sleep, x.paths);
      recent.remember(x.hash, row, a.to);
    }
  }

  // What the chunk (of level `depth`) found, in order, up to the cut:
  // terminal states, races, counters, the observer's calls, and the new
  // states, queued at their levels. The state whose successor passes a bound is the last one reported.
  // Each successor's merge is the next arrival in its shard's list: the lists
  // keep the chunk's order, and the report reads no merge result in a batch.
  void report(const Chunk& c, const Cut& cut, std::size_t depth) {
    std::vector<std::size_t> next(visited_.shards(), 0);  // by shard: its next arrival
    for (std::size_t b = 0; b < c.blocks() && b <= cut.block; ++b) {
      const auto& batch = c.batches[b];
      std::uint32_t race = 0, k = 0;
      for (std::size_t j = 0; j < batch.states.size(); ++j) {
        const auto& e = batch.states[j];
        const auto si = e.state;
        if (opts_.observer.state) opts_.observer.state(numbered(si), state_at(si), e.terminal);
        if (e.terminal) findings_.terminal(state_at(si), {si, depth}, c.paths[b * Chunk::kBlock + j], result_.counters);
        for (; race < e.races_end; ++race) findings_.race(batch.races[race], {si, depth});
        result_.counters.transitions_pruned += e.pruned;
        for (; k < e.successors_end && cut.before(b, k); ++k) {
          const auto s = batch.shard[k];
          const auto& a = shard_arrivals_[s].list[next[s]++];
          assert(a.batch == b && a.successor == k);
          ++result_.counters.transitions;
          result_.counters.firings += batch.steps_of(k).size();
          if (!a.fresh) ++result_.counters.states_matched;
          else queue(a.level, a.to);
          if (opts_.observer.transition) {
            const auto steps = batch.steps_of(k);
            opts_.observer.transition(numbered(si), numbered(a.to), Schedule(steps.begin(), steps.end()));
          }
        }
        if (k < e.successors_end) return;  // the cut
      }
    }
  }

  // Queues new state i at its level, after every state first reached before it.
  void queue(std::size_t level, StateIndex i) {
    levels_[level].push_back(i);
  }

  // The observer's number of state i: the states numbered in the order they were first reached.
  std::uint32_t numbered(StateIndex i) {
    return numbers_.try_emplace(i, static_cast<std::uint32_t>(numbers_.size())).first->second;
  }

  // The schedule reaching s: from the initial state, the firings of a move
  // from each state on the way that lands on the next one.
  Schedule path_to(StateIndex s) {
    std::vector<StateIndex> chain{s};  // s, its parent, ..., the initial state
    while (visited_.arrival(chain.back()) != kNoParent) chain.push_back(visited_.arrival(chain.back()));
    Schedule moves;
    Row at, to;
    visited_.load(chain.back(), at);
    for (auto it = chain.rbegin() + 1; it != chain.rend(); ++it) {
      visited_.load(*it, to);
      append_move(at, to, moves);
      at.swap(to);
    }
    Schedule out;  // the settling firings may be a whole loop's: copied once, into place
    out.reserve(initial_steps_.size() + moves.size());
    out.insert(out.end(), initial_steps_.begin(), initial_steps_.end());
    out.insert(out.end(), moves.begin(), moves.end());
    return out;
  }

  // Appends the firings of the first move, in the reduction's order, with
  // which `at` reaches `to`, among the moves from `at` under no sleep set (a
  // sleep set only leaves moves out), each of its results in order. Any such
  // move is a schedule from `at` to `to`; it is the one the search took first
  // but where two moves land on one row, which the fired records in rows make
  // rare. It depends on the rows alone, so on no thread count.
  void append_move(std::span<const Code> at, std::span<const Code> to, Schedule& out) {
    auto& w = *workers_[0];
    bool found = false;
    if (!w.terminal(at))
      w.successors(at, {}, [&](const SuccessorSeen& s) {
        if (!found && StateTable::same_row(s.row, to)) {
          out.insert(out.end(), s.steps.begin(), s.steps.end());
          found = true;
        }
      });
    if (!found) throw std::logic_error("explore: no move from a state's parent reaches it");
  }

  State state_at(StateIndex si) const {
    Row row;
    visited_.load(si, row);
    return codec_.unpack(row);
  }
};

}  // namespace

Result explore(const Semantics& sem, const ExploreOptions& options, const Checkpoints* checkpoints) {
  const auto shards = shards_for(std::max(1U, options.threads));
  if (checkpoints == nullptr) return Search(sem, options, shards, nullptr).run();
  try {
    const auto path = checkpoint_path(*checkpoints, options.por), manifest = manifest_path(*checkpoints, options.por);
    if (checkpoints->resume && checkpoints->required && !std::filesystem::exists(path) && std::filesystem::exists(manifest))
      throw CheckpointError(manifest + ": the checkpoint of a --distributed search: resume it with --distributed, on any number of ranks");
    if (checkpoints->resume && (checkpoints->required || std::filesystem::exists(path))) {
      CheckpointIn in(path);
      const auto header = read_header(in, header_for(sem, options, *checkpoints, shards));
      Search search(sem, options, header.shards, checkpoints);
      search.restore(in);
      return search.run();
    }
    std::filesystem::create_directories(checkpoints->dir);
    return Search(sem, options, shards, checkpoints).run();
  } catch (const CheckpointError& e) {
    throw InputError("", checkpoints->resume ? "--resume" : "--checkpoint", "", e.what());
  } catch (const std::filesystem::filesystem_error& e) {
    throw InputError("", "--checkpoint", "", e.what());
  }
}

}  // namespace tfsem::explorer
