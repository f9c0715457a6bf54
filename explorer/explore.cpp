#include "explorer/explore.hpp"

#include "explorer/expansion.hpp"
#include "explorer/memory_gauge.hpp"
#include "explorer/visited.hpp"

#include <unsupported/Eigen/CXX11/ThreadPool>

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <memory>
#include <unordered_map>

namespace tfsem::explorer {

namespace {

using Clock = std::chrono::steady_clock;

// What one thread needs to expand states, and its cache's size, published after each block.
struct Worker : Expander {
  using Expander::Expander;
  std::atomic<std::size_t> firings_bytes{0};
};

// How a state was first reached: a move from its parent, and which result;
// 16 bytes, one for every stored state.
class Arrival {
 public:
  Arrival() = default;
  Arrival(StateIndex from, Move m, std::uint32_t result)
      : parent(from), t_(m.t), result_phase_(result << 1 | (m.write_phase ? 1U : 0U)) {}
  StateIndex parent = 0;
  [[nodiscard]] Move move() const { return {t_, (result_phase_ & 1U) != 0}; }
  [[nodiscard]] std::uint32_t result() const { return result_phase_ >> 1; }

 private:
  Transition t_;
  std::uint32_t result_phase_ = 0;  // the result (a firing has far fewer than 2^31), then whether a write phase
};
static_assert(sizeof(Arrival) == 16);

// What expanding a block of states found; merged into the search in order.
struct Batch {
  struct Expanded {
    StateIndex state;
    bool terminal;
    std::uint64_t pruned;
    std::uint32_t races_end, successors_end;
  };
  struct Successor {
    Arrival how;
    std::uint64_t hash;
    std::uint32_t rows_end, sleep_end, steps_end;
    FrameId exceeds;  // it would start an iteration past --max-iterations
  };
  std::vector<Expanded> states;
  std::vector<RaceSeen> races;
  std::vector<Successor> successors;
  Row rows;       // each successor's, one after the other
  SleepSet sleep;  // each successor's, one after the other
  Schedule steps;  // each successor's firings, one after the other
  void clear() {
    states.clear(), races.clear(), successors.clear(), rows.clear(), sleep.clear(), steps.clear();
  }
};

// A chunk of a bucket: its states' rows and sleep sets, copied out of the
// search before it is expanded (expanding reads nothing that merging writes),
// and what expanding its blocks found.
struct Chunk {
  static constexpr std::size_t kBlock = 64, kStates = 64 * kBlock;
  std::vector<StateIndex> states;
  std::size_t width = 0;  // of every row: the table's when the chunk was taken out
  Row rows;
  std::vector<SleepSet> sleep = std::vector<SleepSet>(kStates);
  std::vector<Batch> batches = std::vector<Batch>(kStates / kBlock);
  // The expansion under way: the next block to take, the pool's threads.
  std::atomic<std::size_t> next_block{0};
  std::unique_ptr<Eigen::Barrier> pool_done;
  std::vector<std::exception_ptr> errors;
  [[nodiscard]] std::size_t blocks() const { return (states.size() + kBlock - 1) / kBlock; }
};

// States are expanded in order of how many firings reach them (every path to a
// state fires the same nodes), so every arrival at a state, with its path
// count and sleep set, is known before the state is expanded. A bucket is
// expanded in chunks, and each chunk merged by one thread, in order, so the
// result does not depend on the number of threads. While the merging thread
// merges a chunk, the pool's threads expand the next one (merging adds only to
// later buckets), and the merging thread joins them when it is done.
class Search {
 public:
  Search(const Semantics& sem, const ExploreOptions& opts)
      : sem_(sem), opts_(opts), codec_(sem), visited_(codec_.width()), race_flags_(sem) {
    const auto threads = std::max(1U, opts.threads);
    for (unsigned t = 0; t < threads; ++t) workers_.push_back(std::make_unique<Worker>(sem, codec_, opts));
    if (threads > 1) pool_ = std::make_unique<Eigen::ThreadPool>(static_cast<int>(threads - 1));
  }

  Result run() {
    start_ = last_report_ = Clock::now();
    result_.por = opts_.por;
    if (const auto exceeds = workers_[0]->initial(initial_row_, initial_steps_); exceeds.valid())
      stop_at_bound(exceeds);
    else
      add(initial_row_, StateTable::hash(initial_row_), {kNoParent, {}, 0}, initial_steps_.size(), {}, 1);
    for (std::size_t depth = 0; depth < visited_.levels().size() && result_.complete; ++depth) {
      // Merging adds to later buckets only (every move fires a node); take this one out first.
      const auto bucket = std::move(visited_.levels()[depth]);
      search_bucket(bucket, depth);
    }
    result_.counters.states_stored = visited_.size();
    result_.store_bytes = visited_.bytes();
    result_.seconds = elapsed();
    result_.memory_bytes = std::max(memory(), gauge_.peak());
    for (auto& o : outcome_order_) result_.outcomes.push_back(std::move(outcomes_[o]));
    for (auto& [key, race] : races_) result_.races.push_back(std::move(race));
    return result_;
  }

 private:
  static constexpr StateIndex kNoParent = UINT32_MAX;

  const Semantics& sem_;
  const ExploreOptions& opts_;
  Codec codec_;
  Visited<Arrival> visited_;
  RaceFlags race_flags_;
  std::vector<std::unique_ptr<Worker>> workers_;  // workers_[0] is the merging thread's
  std::unique_ptr<Eigen::ThreadPool> pool_;
  Chunk chunks_[2];  // the one being merged, the one being expanded
  Row initial_row_;
  Schedule initial_steps_;  // the settling firings before the first stored state
  std::unordered_map<std::string, Outcome> outcomes_;
  std::vector<std::string> outcome_order_;
  std::map<std::pair<Transition, Transition>, Race> races_;
  Result result_;
  Clock::time_point start_, last_report_;
  MemoryGauge gauge_;

  Reduction& reduction() { return workers_[0]->reduction; }
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  // The search's own count of its largest structures.
  std::uint64_t counted() const {
    std::uint64_t firings = 0;
    for (const auto& w : workers_) firings += w->firings_bytes.load(std::memory_order_relaxed);
    return visited_.bytes() + codec_.bytes() + firings + race_flags_.bytes();
  }
  // The memory --max-memory limits: the process's, as the gauge reads it.
  std::uint64_t memory() { return gauge_.bytes(counted()); }

  // A behaviour would start iteration max_iterations of loop `frame`, or
  // call function `frame` past max_depth.
  void stop_at_bound(FrameId frame) {
    result_.complete = false;
    result_.stopped_by = bound_to_string(sem_.program(), frame, opts_.limits.bounds);
  }

  bool within_limits() {
    const auto& l = opts_.limits;
    if (l.stop && l.stop->load(std::memory_order_relaxed)) result_.stopped_by = "interrupt";
    else if (visited_.size() > l.max_states) result_.stopped_by = "max-states " + std::to_string(l.max_states);
    else if (l.timeout && elapsed() > l.timeout->count()) result_.stopped_by = "timeout";
    else return true;
    result_.complete = false;
    return false;
  }

  // Whether merging the batch's successors [first, end) into bucket `depth`'s
  // successors stays within --max-memory, counted before they are added: a
  // structure that grows holds its old storage and its new one at once.
  bool room_for(const Batch& batch, std::uint32_t first, std::uint32_t end, std::size_t depth) {
    const std::size_t n = end - first;
    const auto rows = first ? batch.successors[first - 1].rows_end : 0;
    std::size_t width = 0, steps = 0;  // the longest row, the most firings of a successor
    for (auto k = first, row = rows, step = first ? batch.successors[first - 1].steps_end : 0; k < end; ++k) {
      const auto& s = batch.successors[k];
      width = std::max<std::size_t>(width, s.rows_end - row);
      steps = std::max<std::size_t>(steps, s.steps_end - step);
      row = s.rows_end, step = s.steps_end;
    }
    const auto growth = visited_.growth_bytes(n, width, depth + 1, depth + steps);
    const auto max = opts_.limits.max_memory_bytes;
    if (memory() + growth <= max) return true;
    result_.stopped_by = "max-memory " + std::to_string(max >> 20) + " MiB";
    result_.complete = false;
    return false;
  }

  // Chunk k of the bucket is merged while chunk k + 1 is expanded.
  void search_bucket(const std::vector<StateIndex>& bucket, std::size_t depth) {
    const auto chunks = (bucket.size() + Chunk::kStates - 1) / Chunk::kStates;
    auto start = [&](std::size_t k) {
      const auto begin = k * Chunk::kStates;
      auto& c = chunks_[k % 2];
      prepare(c, std::span(bucket.data() + begin, std::min(Chunk::kStates, bucket.size() - begin)));
      launch(c);
    };
    if (chunks == 0) return;
    start(0);
    join(chunks_[0]);
    for (std::size_t k = 0; k < chunks && result_.complete; ++k) {
      const bool more = k + 1 < chunks;
      auto& next = chunks_[(k + 1) % 2];
      if (more) start(k + 1);
      try {
        const auto& now = chunks_[k % 2];
        for (std::size_t b = 0; b < now.blocks() && result_.complete; ++b) merge(now.batches[b], depth);
      } catch (...) {
        if (more) cancel(next);
        throw;
      }
      if (!more) break;
      if (result_.complete) join(next);
      else cancel(next);
    }
  }

  // ---- Expanding: reads only its chunk (and race flags), writes only the chunk's batches. ----

  // Takes the chunk's states out of the search: their rows (copied) and sleep
  // sets (moved: nothing arrives at them any more) are final.
  void prepare(Chunk& c, std::span<const StateIndex> states) {
    c.width = visited_.table().width();
    c.states.assign(states.begin(), states.end());
    c.rows.resize(states.size() * c.width);
    for (std::size_t k = 0; k < states.size(); ++k) {
      visited_.table().load(states[k], c.rows.data() + k * c.width);
      c.sleep[k] = visited_.take_sleep(states[k]);
    }
  }

  void expand_blocks(Worker& w, Chunk& c) {
    for (std::size_t b; (b = c.next_block.fetch_add(1)) < c.blocks();) {
      auto& batch = c.batches[b];
      batch.clear();
      for (std::size_t k = b * Chunk::kBlock; k < std::min(c.states.size(), (b + 1) * Chunk::kBlock); ++k) expand(w, c, k, batch);
      w.firings_bytes.store(w.firings.bytes(), std::memory_order_relaxed);
    }
  }

  // The pool's threads start expanding the chunk.
  void launch(Chunk& c) {
    c.next_block = 0;
    c.errors.assign(workers_.size(), nullptr);
    if (!pool_) return;
    c.pool_done = std::make_unique<Eigen::Barrier>(static_cast<unsigned>(workers_.size() - 1));
    for (std::size_t t = 1; t < workers_.size(); ++t)
      pool_->Schedule([this, &c, t] {
        try {
          expand_blocks(*workers_[t], c);
        } catch (...) {
          c.errors[t] = std::current_exception();
        }
        c.pool_done->Notify();
      });
  }

  void wait(Chunk& c) {
    if (c.pool_done) c.pool_done->Wait();
    c.pool_done.reset();
  }

  // The search stopped: no block of the chunk is started any more.
  void cancel(Chunk& c) {
    c.next_block.store(c.blocks());
    wait(c);
  }

  // The merging thread expands what is left of the chunk, then waits for the pool.
  void join(Chunk& c) {
    try {
      expand_blocks(*workers_[0], c);
    } catch (...) {
      c.errors[0] = std::current_exception();
    }
    wait(c);
    for (const auto& e : c.errors)
      if (e) std::rethrow_exception(e);
  }

  void expand(Worker& w, const Chunk& c, std::size_t k, Batch& out) {
    const auto si = c.states[k];
    const std::span<const Code> row(c.rows.data() + k * c.width, c.width);
    auto& expanded = out.states.emplace_back(Batch::Expanded{si, false, 0, 0, 0});
    expanded.terminal = w.terminal(row);
    if (!expanded.terminal) {
      w.races(row, race_flags_, out.races);
      expanded.pruned = w.successors(row, c.sleep[k], [&](const SuccessorSeen& s) {
        out.sleep.insert(out.sleep.end(), s.sleep.begin(), s.sleep.end());
        out.rows.insert(out.rows.end(), s.row.begin(), s.row.end());
        out.steps.insert(out.steps.end(), s.steps.begin(), s.steps.end());
        out.successors.push_back({{si, s.move, s.result}, StateTable::hash(s.row), static_cast<std::uint32_t>(out.rows.size()),
                                  static_cast<std::uint32_t>(out.sleep.size()), static_cast<std::uint32_t>(out.steps.size()),
                                  s.exceeds});
      });
    }
    expanded.races_end = static_cast<std::uint32_t>(out.races.size());
    expanded.successors_end = static_cast<std::uint32_t>(out.successors.size());
  }

  // ---- Merging: one thread, in the order of the bucket. ----

  void merge(const Batch& batch, std::size_t depth) {
    std::uint32_t race = 0, successor = 0, rows = 0, sleep = 0, step = 0;
    for (const auto& e : batch.states) {
      const auto si = e.state;
      if (opts_.observer.state) opts_.observer.state(si, state_at(si), e.terminal);
      if (e.terminal) record_terminal(si);
      for (; race < e.races_end; ++race) record_race(si, batch.races[race]);
      result_.counters.transitions_pruned += e.pruned;
      if (!room_for(batch, successor, e.successors_end, depth)) return;
      for (; successor < e.successors_end; ++successor) {
        const auto& s = batch.successors[successor];
        if (s.exceeds.valid()) return stop_at_bound(s.exceeds);
        const std::span<const Code> row(batch.rows.data() + rows, s.rows_end - rows);
        const std::span<const Transition> next_sleep(batch.sleep.data() + sleep, s.sleep_end - sleep);
        const std::span<const Step> steps(batch.steps.data() + step, s.steps_end - step);
        ++result_.counters.transitions;
        const auto to = add(row, s.hash, s.how, depth + steps.size(), next_sleep, visited_.paths(si));
        if (opts_.observer.transition) opts_.observer.transition(si, to, Schedule(steps.begin(), steps.end()));
        rows = s.rows_end, sleep = s.sleep_end, step = s.steps_end;
      }
      if (!within_limits()) return;
      if (opts_.progress && Clock::now() - last_report_ > std::chrono::milliseconds(250)) {
        last_report_ = Clock::now();
        opts_.progress({visited_.size(), memory(), elapsed()});
      }
    }
  }

  // Records an arrival at a state, `depth` firings from the initial state.
  StateIndex add(std::span<const Code> row, std::uint64_t hash, Arrival how, std::size_t depth,
                 std::span<const Transition> sleep, PathCount paths) {
    const auto [i, fresh] = visited_.add(row, hash, how, depth, sleep, paths);
    if (!fresh) ++result_.counters.states_matched;
    return i;
  }

  // The schedule reaching s: its moves replayed from the initial state.
  Schedule path_to(StateIndex s) {
    std::vector<const Arrival*> chain;
    for (; visited_.arrival(s).parent != kNoParent; s = visited_.arrival(s).parent) chain.push_back(&visited_.arrival(s));
    Schedule out = initial_steps_;
    auto at = initial_row_;
    auto& landings = workers_[0]->landings;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      reduction().fire(at, (*it)->move(), landings);
      const auto steps = landings.steps((*it)->result());
      out.insert(out.end(), steps.begin(), steps.end());
      const auto row = landings.row((*it)->result());
      at.assign(row.begin(), row.end());
    }
    return out;
  }

  State state_at(StateIndex si) const {
    Row row;
    visited_.table().load(si, row);
    return codec_.unpack(row);
  }

  void record_terminal(StateIndex si) {
    ++result_.counters.terminal_states;
    result_.counters.behaviours = saturating_add(result_.counters.behaviours, visited_.paths(si));
    auto o = outcome_of(sem_, state_at(si));
    const auto key = outcome_text(sem_, o);
    auto [it, fresh] = outcomes_.try_emplace(key, std::move(o));
    if (fresh) {
      it->second.witness = path_to(si);
      outcome_order_.push_back(key);
    }
    it->second.paths = saturating_add(it->second.paths, visited_.paths(si));
  }

  void record_race(StateIndex si, const RaceSeen& seen) {
    const auto [a, b, harmful] = seen;
    const auto x = sem_.access(a.node).var;
    auto [it, fresh] = races_.try_emplace({a, b});
    auto& race = it->second;
    if (!fresh && race.harmful) return;
    if (fresh || harmful) {
      const auto prefix = path_to(si);
      race = Race{a, b, x, harmful, prefix, prefix};
      const Step sa{a.node, a.context, 0}, sb{b.node, b.context, 0};
      race.first_then_second.insert(race.first_then_second.end(), {sa, sb});
      race.second_then_first.insert(race.second_then_first.end(), {sb, sa});
      if (a.context == kRootContext && b.context == kRootContext)
        race_flags_.set(x, a.node, b.node, harmful ? RaceFlags::harmful : RaceFlags::benign);
    }
  }
};

}  // namespace

Result explore(const Semantics& sem, const ExploreOptions& options) { return Search(sem, options).run(); }

Outcome outcome_of(const Semantics& sem, const State& terminal) {
  return {outputs(sem.program(), terminal), terminal.var_value, sem.stuck(terminal), sem.violations(terminal), 0, {}};
}

std::string outcome_text(const Semantics& sem, const Outcome& o) {
  const auto& p = sem.program();
  std::string out;
  for (const auto& [fetch, c] : o.outputs) out += (out.empty() ? "" : "; ") + fetch + "=" + content_to_string(p, c);
  for (std::size_t x = 0; x < o.var_value.size(); ++x)
    out += (out.empty() ? "" : "; ") + p.variable(VarId(x)).name + "=" + o.var_value[x].to_string();
  if (!o.stuck.empty()) {
    out += "; stuck=";
    for (std::size_t i = 0; i < o.stuck.size(); ++i)
      out += (i ? "," : "") + transition_to_string(p, sem.contexts(), o.stuck[i].transition);
  }
  if (!o.violations.empty()) {
    out += "; violation=";
    for (std::size_t i = 0; i < o.violations.size(); ++i)
      out += (i ? "," : "") + std::string(violation_name(o.violations[i].kind)) + ":" +
             transition_to_string(p, sem.contexts(), o.violations[i].at);
  }
  return out;
}

}  // namespace tfsem::explorer
