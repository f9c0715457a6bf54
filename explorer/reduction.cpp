#include "explorer/reduction.hpp"

#include <algorithm>

namespace tfsem::explorer {

namespace {

bool asleep(const SleepSet& sleep, Transition t) { return std::binary_search(sleep.begin(), sleep.end(), t); }

}  // namespace

std::string_view por_name(Por p) {
  switch (p) {
    case Por::none: return "none";
    case Por::stubborn: return "stubborn";
    case Por::rf: return "rf";
  }
  return "?";
}

std::optional<Por> parse_por(std::string_view name) {
  for (auto p : kAllPor)
    if (por_name(p) == name) return p;
  return std::nullopt;
}

Reduction::Reduction(Firings& firings, Por por, Cutoff cutoff)
    : f_(firings),
      sem_(firings.semantics()),
      dep_(sem_.dependence()),
      por_(por),
      loops_(sem_.program().frames().size() > 1),
      accessors_(sem_.program().variables().size()),
      root_only_(sem_.program().variables().size(), true),
      only_commuting_(sem_.program().variables().size(), false),
      cutoff_(cutoff),
      shapes_(!loops_) {
  const auto& p = sem_.program();
  consumers_at_.push_back(0);
  for (std::size_t i = 0; i < p.nodes().size(); ++i) {
    const NodeId n(i);
    const auto& node = p.node(n);
    for (const auto* edges : {&node.out, &node.control_out})
      for (auto e : *edges)
        if (!p.edge(e).is_output()) consumers_.push_back(p.edge(e).dst);
    consumers_at_.push_back(static_cast<std::uint32_t>(consumers_.size()));
    if (const auto a = sem_.access(n); a.kind != Access::Kind::none) {
      accessors_[a.var.index()].push_back(n);
      if (node.frame.index() != 0) root_only_[a.var.index()] = false;
    }
  }
  for (std::size_t x = 0; x < accessors_.size(); ++x)
    only_commuting_[x] = dep_.commuting(VarId(x)) && std::all_of(accessors_[x].begin(), accessors_[x].end(), [&](NodeId n) {
                           return sem_.access(n).kind == Access::Kind::update;
                         });
  records_.resize(accessors_.size());
  for (std::size_t x = 0; x < accessors_.size(); ++x)
    if (root_only_[x])
      for (auto a : accessors_[x]) records_[x].push_back(f_.codec().root_record(a));
  member_root_.assign(p.nodes().size(), 0);
}

bool Reduction::independent(Transition a, Transition b) const { return dep_.independent(a, b); }

FrameId Reduction::fire_step(Row& row, Transition t, Firings::Found found, std::uint32_t r, Schedule& steps,
                             std::vector<NodeId>& seeds) {
  const auto exceeds = f_.fire(row, found, r, row);
  steps.push_back({t.node, t.context, r});
  for (auto k = consumers_at_[t.node.index()]; k < consumers_at_[t.node.index() + 1]; ++k) seeds.push_back(consumers_[k]);
  return exceeds;
}

FrameId Reduction::settle(Row& row, Schedule& steps, std::vector<NodeId>& seeds) {
  if (por_ == Por::none) return {};
  if (loops_) return settle_depth_first(row, steps);
  // In passes, as a fixed order of firings: those eager when a pass begins, in
  // order; then, in the next pass, those that they made eager.
  auto& pass = pass_;
  while (true) {
    pass.clear();
    std::sort(seeds.begin(), seeds.end());
    seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
    for (auto n : seeds)
      if (const Transition t{n, kRootContext}; enabled_and_eager(f_.view(row), t))
        pass.push_back(t);
    seeds.clear();
    if (pass.empty()) return {};
    for (auto t : pass) {
      // An earlier firing of the pass may have given a Merge a second live input.
      if (!dep_.eager(f_.view(row), t)) continue;
      if (const auto exceeds = fire_step(row, t, f_.find(row, t), 0, steps, seeds); exceeds.valid()) return exceeds;
      if (cutoff_.reached()) return {};
    }
  }
}

bool Reduction::eager_now(std::span<const Code> row, Waiting w) {
  const auto& ctx = sem_.contexts();
  const auto& p = sem_.program();
  const auto t = w.t;
  if (t.context != kRootContext && f_.codec().block(row, t.context) == Codec::kNone) return false;
  if (!w.started)
    for (auto c = t.context; c != kRootContext; c = ctx[c].parent)
      if (!ctx.is_call(c) && ctx[c].iteration >= p.frame(ctx[c].frame).parallel_iterations) return false;
  return enabled_and_eager(f_.view(row), t);
}

bool Reduction::eager(const RowView& v, Transition t) { return dep_.eager(v, t) && one_result(v, t); }

bool Reduction::enabled_and_eager(const RowView& v, Transition t) {
  return dep_.eager(v, t) && sem_.locally_enabled(v, t) && one_result(v, t);
}

bool Reduction::one_result(const RowView& v, Transition t) { return !sem_.branches(t.node) || f_.find(v.row, t).results == 1; }

bool Reduction::starts(std::span<const Code> row, ContextId from, ContextId to) const {
  // C-BOUND: a started context's parent is started; so are iteration 0 of a
  // frame entered from it, and a call from it.
  const auto& ctx = sem_.contexts();
  if (to == from) return true;
  for (auto c = from; c != kRootContext; c = ctx[c].parent)
    if (ctx[c].parent == to) return true;
  if (to == kRootContext) return false;
  if (ctx[to].parent == from && (ctx.is_call(to) || ctx[to].iteration == 0)) return true;
  if (from == kRootContext || ctx.is_call(to) || ctx[to].first != ctx[from].first) return false;
  // Another iteration j of from's frame instance: started when j < d + P,
  // d its first iteration not done. Iterations 1 to j - P are done when
  // j - P has left the row (they leave in order, C-FINISHED); iteration 0
  // is when every Enter has fired, it records every node of its frame as
  // fired and nothing is nested in it.
  const auto& frame = sem_.program().frame(ctx[to].frame);
  const auto bound = frame.parallel_iterations;
  if (ctx[to].iteration < bound) return true;
  auto k = to;
  for (std::uint32_t i = 0; i < bound; ++i) k = ctx[k].previous;
  const auto& codec = f_.codec();
  if (ctx[k].iteration != 0 && codec.block(row, k) != Codec::kNone) return false;
  const auto first = ctx[to].first;
  const auto start = codec.block(row, first);
  const auto parent = codec.block(row, ctx[to].parent);
  auto fired = [&](NodeId n, std::uint32_t block) { return codec.fired(row, n, block); };
  if (!std::all_of(frame.enters.begin(), frame.enters.end(), [&](NodeId n) { return fired(n, parent); })) return false;
  if (!std::all_of(frame.records.begin(), frame.records.end(), [&](NodeId n) { return fired(n, start); })) return false;
  bool nested = false;
  codec.contexts(row, [&](ContextId x) { nested = nested || (x != kRootContext && ctx[x].parent == first); });
  return !nested;
}

FrameId Reduction::settle_depth_first(Row& row, Schedule& steps) {
  // The firings waiting, the next one last. A firing's consumers go on top,
  // so a call runs to its Return, and an iteration to its NextIteration,
  // before the work waiting under them: the row holds the contexts of a call
  // stack, not of a whole tree of calls. A transition may wait while it is
  // not eager, or not enabled (a Merge waits for its other inputs): it is
  // looked at again when it comes to the top. When none waits, the first
  // eager transition of the frontier fires: what C-BOUND and C-DONE start,
  // or what an instance's completion delivers (C-EXIT-DEAD).
  auto& stack = stack_;
  stack.clear();
  const auto& p = sem_.program();
  while (true) {
    Waiting w;
    if (stack.empty()) {
      f_.frontier(row, frontier_);
      const auto view = f_.view(row);  // one view for the whole frontier: its index serves every lookup
      const auto it = std::find_if(frontier_.enabled.begin(), frontier_.enabled.end(), [&](Transition t) { return eager(view, t); });
      if (it == frontier_.enabled.end()) return {};
      w = {*it, true};
    } else {
      w = stack.back();
      stack.pop_back();
      if (!eager_now(row, w)) continue;
    }
    const auto t = w.t;
    const auto exceeds = f_.fire(row, f_.find(row, t), 0, row);
    steps.push_back({t.node, t.context, 0});
    if (exceeds.valid()) return exceeds;
    if (cutoff_.reached()) return {};
    // What t's tokens reach: the destination of each outgoing edge, in the
    // context that reads the slot (a Return reads its site's call).
    const auto& node = p.node(t.node);
    for (const auto* edges : {&node.control_out, &node.out})
      for (auto k = edges->size(); k-- > 0;) {
        const auto& e = p.edge((*edges)[k]);
        if (e.is_output()) continue;
        auto c = sem_.out_slot((*edges)[k], t.context).context;
        if (rules::with_rule(p.node(e.dst).op.kind, [](auto r) { return decltype(r)::kReadsCallee; }) && e.call) {
          if (sem_.contexts()[c].iteration != sem_.site(e.dst)) continue;
          c = sem_.contexts()[c].parent;
        }
        stack.push_back({Transition{e.dst, c}, w.started && starts(row, t.context, c)});
      }
  }
}

void Reduction::stubborn_set(std::span<const Code> row, const Frontier& f, Transition t, std::vector<Transition>& out) {
  // Closure: an enabled member brings every transition it conflicts with; a
  // disabled member brings a set one of which must fire before it can be
  // enabled (Dependence::conflicts and necessary). Returns the enabled members.
  out.clear();
  work_.clear();
  marked_.clear();
  edges_.clear();
  present_ = &f.present;
  auto add = [&](Transition v) {  // v's index + 1
    auto& i = member_index(v);
    if (i == 0) {
      marked_.push_back(v);
      i = static_cast<std::uint32_t>(marked_.size());
      work_.push_back(v);
    }
    return i;
  };
  add(t);
  const auto view = f_.view(row);
  while (!work_.empty()) {
    const auto u = work_.back();
    work_.pop_back();
    const auto from = member_index(u);
    scratch_.clear();
    if (std::binary_search(f.enabled.begin(), f.enabled.end(), u)) {
      out.push_back(u);
      dep_.conflicts(view, f, u, scratch_);
    } else {
      dep_.necessary(view, f, u, scratch_);
    }
    for (auto v : scratch_) edges_.emplace_back(from - 1, add(v) - 1);
  }
  cover_same(f, out);
  for (auto v : marked_) member_index(v) = 0;
  member_.clear();
  std::sort(out.begin(), out.end());
}

std::uint32_t& Reduction::member_index(Transition v) {
  if (v.context == kRootContext) return member_root_[v.node.index()];
  const auto it = std::lower_bound(present_->begin(), present_->end(), v.context);
  const auto k = static_cast<std::size_t>(it - present_->begin());
  if (it == present_->end() || *it != v.context || k >= kDenseContexts) return member_[v];
  if (member_present_.size() <= k) member_present_.resize(k + 1);
  auto& members = member_present_[k];
  if (members.empty()) members.assign(member_root_.size(), 0);
  return members[v.node.index()];
}

// An enabled member u that brings t in again (a path of the closure's edges
// from u to t) closes to the same set: no smaller one, so it need not be tried.
void Reduction::cover_same(const Frontier& f, std::span<const Transition> enabled_members) {
  const auto n = marked_.size();
  // The edges by their head, to walk them backwards from t (member 0).
  into_.assign(n + 1, 0);
  for (const auto& [a, b] : edges_) ++into_[b + 1];
  for (std::size_t i = 0; i < n; ++i) into_[i + 1] += into_[i];
  from_.resize(edges_.size());
  reach_.assign(into_.begin(), into_.end() - 1);
  for (const auto& [a, b] : edges_) from_[reach_[b]++] = a;
  reaches_.assign(n, 0);
  reaches_[0] = 1;
  reach_.assign(1, 0);
  while (!reach_.empty()) {
    const auto b = reach_.back();
    reach_.pop_back();
    for (auto k = into_[b]; k < into_[b + 1]; ++k)
      if (const auto a = from_[k]; reaches_[a] == 0) {
        reaches_[a] = 1;
        reach_.push_back(a);
      }
  }
  for (auto u : enabled_members)
    if (reaches_[member_index(u) - 1] != 0)
      covered_[static_cast<std::size_t>(std::lower_bound(f.enabled.begin(), f.enabled.end(), u) - f.enabled.begin())] = 1;
}

void Reduction::phase_candidates(std::span<const Code> row, const Frontier& f, std::vector<PhaseCandidates>& out) {
  out.clear();
  const auto view = f_.view(row);
  auto& c = scratch_phase_;
  for (std::size_t x = 0; x < accessors_.size(); ++x) {
    if (!root_only_[x]) continue;  // accessors in loops may be pending in contexts not met yet
    // Every accessor is in the root context, which has always started: there
    // the frontier is C-ENABLED. The enabled ones that may overwrite are the candidates.
    c.x = VarId(x);
    c.writes.clear();
    c.others.clear();
    for (auto a : accessors_[x]) {
      if (view.fired(a, kRootContext)) continue;
      const bool candidate = dep_.may_overwrite(a) &&
                             std::binary_search(f.enabled.begin(), f.enabled.end(), Transition{a, kRootContext});
      (candidate ? c.writes : c.others).push_back(a);
    }
    // Every other pending access must come after at least two of the overwrites, so after two candidates.
    const auto after_two = [&](NodeId o) {
      return std::count_if(c.writes.begin(), c.writes.end(), [&](NodeId w) { return dep_.precedes(w, o); }) >= 2;
    };
    if (c.writes.size() >= 2 && std::all_of(c.others.begin(), c.others.end(), after_two)) out.push_back(c);
  }
}

void Reduction::write_phase(std::span<const Code> row, const PhaseCandidates& c, std::vector<NodeId>& out) {
  out.clear();
  others_.assign(c.others.begin(), c.others.end());
  // The candidates that do not overwrite are pending accesses like the others.
  for (auto w : c.writes) (f_.overwrites(row, {w, kRootContext}) ? out : others_).push_back(w);
  const bool phase = out.size() >= 2 && std::all_of(others_.begin(), others_.end(), [&](NodeId o) {
    return std::all_of(out.begin(), out.end(), [&](NodeId w) { return dep_.precedes(w, o); });
  });
  if (!phase) out.clear();
}

void Reduction::moves(std::span<const Code> row, const Frontier& f, const SleepSet& sleep, std::vector<Move>& out) {
  out.clear();
  auto awake = [&](const std::vector<Transition>& ts) {
    for (auto t : ts)
      if (!asleep(sleep, t)) out.push_back({t});
  };
  if (por_ == Por::none) return awake(f.enabled);
  // Without loops or calls, what the moves depend on is mostly the state's shape.
  auto* known = shapes_ ? &shape_of(row) : nullptr;
  if (por_ == Por::rf) {
    if (known == nullptr) phase_candidates(row, f, phases_);
    else if (!known->phases_known) phase_candidates(row, f, known->phases), known->phases_known = true;
    for (const auto& c : known != nullptr ? known->phases : phases_) {
      write_phase(row, c, writes_);
      if (writes_.empty()) continue;
      // Sleep sets are not applied to a write phase: it is explored whole.
      for (auto w : writes_) out.push_back({{w, kRootContext}, Move::Kind::write_phase});
      return;
    }
  }
  if (known == nullptr) {
    smallest_stubborn_set(row, f);
  } else if (!known->stubborn_known) {
    smallest_stubborn_set(row, f);
    known->stubborn = best_;
    known->stubborn_known = true;
  }
  const auto& set = known == nullptr ? best_ : known->stubborn;
  awake(set);
  if (set.size() == 1 && out.size() == 1 && commuting_move(row, out[0].t)) out[0].kind = Move::Kind::commuting;
}

bool Reduction::commuting_move(std::span<const Code> row, Transition t) {
  const auto a = sem_.access(t.node);
  return a.kind == Access::Kind::update && only_commuting_[a.var.index()] && f_.find(row, t).results == 1;
}

void Reduction::fire_commuting(Row& row, Transition t, Schedule& steps, std::vector<NodeId>& seeds) {
  // Each update touches only x and its own slots, and none disables another,
  // so those enabled in row stay enabled as the others fire.
  f_.frontier(row, commuting_frontier_);
  fire_step(row, t, f_.find(row, t), 0, steps, seeds);
  const auto x = sem_.access(t.node).var;
  for (auto u : commuting_frontier_.enabled)
    if (const auto a = sem_.access(u.node); u != t && a.kind == Access::Kind::update && a.var == x)
      fire_step(row, u, f_.find(row, u), 0, steps, seeds);
}

void Reduction::frontier(std::span<const Code> row, Frontier& out) {
  if (!shapes_) return f_.frontier(row, out);
  out = shaped(row).frontier;
  if (shape_lookups_ >= kShapeTrial && shape_hits_ * 2 < shape_lookups_) {  // the cache does not pay: let go
    shapes_ = false;
    by_shape_ = {};
    last_ = nullptr;
  }
}

Reduction::ByShape& Reduction::shape_of(std::span<const Code> row) {
  return last_ != nullptr && last_row_ == row.data() && last_size_ == row.size() ? *last_ : shaped(row);
}

Reduction::ByShape& Reduction::shaped(std::span<const Code> row) {
  last_row_ = row.data();
  last_size_ = row.size();
  f_.codec().shape(row, shape_);
  ++shape_lookups_;
  if (const auto it = by_shape_.find(shape_); it != by_shape_.end()) {
    ++shape_hits_;
    return *(last_ = &it->second);
  }
  ByShape fresh;
  f_.frontier(row, fresh.frontier);
  if (by_shape_.size() >= kShapes) by_shape_.clear();
  return *(last_ = &by_shape_.emplace(shape_, std::move(fresh)).first->second);
}

void Reduction::smallest_stubborn_set(std::span<const Code> row, const Frontier& f) {
  // Trying transitions that touch no variable first (a relation's set is often itself alone).
  best_.clear();
  covered_.assign(f.enabled.size(), 0);
  for (const bool pure : {true, false})
    for (std::size_t k = 0; k < f.enabled.size(); ++k) {
      const auto t = f.enabled[k];
      if ((sem_.access(t.node).kind == Access::Kind::none) != pure || covered_[k] != 0) continue;
      stubborn_set(row, f, t, candidate_);
      if (best_.empty() || candidate_.size() < best_.size()) best_.swap(candidate_);
      if (best_.size() == 1) return;
    }
}

void Reduction::fire_writes(std::span<const Code> row, Transition last) {
  // The phase moves() found: the pending accesses to the variable that `last`
  // does not precede. Every other pending access comes after all of the
  // phase's writes, and an enabled write comes after no pending access.
  auto& p = phase_;
  p.parent.clear();  // until the phase is whole: an allocation that fails leaves no phase of this row
  p.x = sem_.access(last.node).var;
  p.base.assign(row.begin(), row.end());
  p.steps.clear();
  p.seeds.clear();
  p.wrote.clear();
  const auto x = p.x.index();
  for (std::size_t k = 0; k < accessors_[x].size(); ++k) {
    const auto a = accessors_[x][k];
    // The record kept, rather than looked up through the codec: this loop runs at every phase.
    if (Codec::set(row, records_[x][k]) || (a != last.node && dep_.precedes(last.node, a))) continue;
    const Transition t{a, kRootContext};  // overwrites are deterministic
    fire_step(p.base, t, f_.find(p.base, t), 0, p.steps, p.seeds);
    p.wrote.push_back(p.base[Codec::column(p.x)]);
  }
  p.parent.assign(row.begin(), row.end());
}

void Reduction::fire_phase(std::span<const Code> row, Transition last, Landings& out) {
  // Each write of a phase overwrites x (its f ignores the old value) and
  // touches nothing else but its own slots and record (S-FRAME), so after
  // all of them the state is the same in any order but for VarValue(x),
  // which the last one sets as it would on its own. So the phase's writes
  // are fired once (per parent), in accessor order, and each move is that
  // state with x as its last write leaves it.
  auto& p = phase_;
  // The phase of another row or variable, or none yet (an empty parent), is fired anew.
  if (p.x != sem_.access(last.node).var || !std::ranges::equal(row, p.parent)) fire_writes(row, last);
  auto& landing = out.start(p.base);
  const auto begin = out.steps_.size();
  std::size_t at = p.steps.size();
  for (std::size_t i = 0; i < p.steps.size(); ++i)
    if (p.steps[i].node == last.node) at = i;
    else out.steps_.push_back(p.steps[i]);
  if (at == p.steps.size()) throw std::logic_error("explore: a write phase's last write is not pending");
  out.steps_.push_back(p.steps[at]);
  landing[Codec::column(p.x)] = p.wrote[at];
  if (phase_checks_ < kPhaseChecks) check_phase(row, {out.steps_.data() + begin, out.steps_.size() - begin}, landing);
  seeds_.assign(p.seeds.begin(), p.seeds.end());
  out.finish(settle(landing, out.steps_, seeds_));
}

void Reduction::check_phase(std::span<const Code> row, std::span<const Step> steps, std::span<const Code> landing) {
  ++phase_checks_;
  auto& check = phase_.check;
  check.assign(row.begin(), row.end());
  for (const auto& st : steps) f_.fire(check, f_.find(check, st.transition()), st.choice, check);
  if (!std::ranges::equal(check, landing))
    throw std::logic_error("explore: the writes of a write phase of '" + sem_.program().variable(phase_.x).name +
                           "' fired one by one reach another state than fired once for every last write");
}

void Reduction::fire(std::span<const Code> row, const Move& m, Landings& out) {
  out.clear();
  auto& seeds = seeds_;
  seeds.clear();
  if (m.kind == Move::Kind::commuting) {
    auto& landing = out.start(row);
    fire_commuting(landing, m.t, out.steps_, seeds);
    out.finish(settle(landing, out.steps_, seeds));
    return;
  }
  if (m.kind == Move::Kind::write_phase) return fire_phase(row, m.t, out);
  const auto found = f_.find(row, m.t);
  for (std::uint32_t r = 0; r < found.results; ++r) {
    auto& landing = out.start(row);
    seeds.clear();
    auto exceeds = fire_step(landing, m.t, found, r, out.steps_, seeds);
    if (!exceeds.valid()) exceeds = settle(landing, out.steps_, seeds);
    out.finish(exceeds);
  }
}

}  // namespace tfsem::explorer
