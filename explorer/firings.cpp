#include "explorer/firings.hpp"

#include "semantics/dependence.hpp"
#include "support/hash.hpp"
#include "support/prefetch.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

namespace tfsem::explorer {

namespace {

// The semantics' view of a row that changes under it (contexts leave it): a
// RowView, made afresh after each change.
struct ChangingRow {
  ChangingRow(const Codec& codec, const Row& row) : row_(row), view_(std::in_place, codec, row) {}
  [[nodiscard]] Holds holds(Slot s) const { return view_->holds(s); }
  [[nodiscard]] bool fired(NodeId n, ContextId c) const { return view_->fired(n, c); }
  template <class F>
  void contexts(F&& f) const {
    view_->contexts(f);
  }
  void changed() { view_.emplace(view_->codec, row_); }

 private:
  const Row& row_;
  std::optional<RowView> view_;
};

}  // namespace

Firings::Firings(const Semantics& sem, Codec& codec, Bounds bounds) : sem_(sem), codec_(codec), bounds_(bounds) {
  const auto& p = sem.program();
  frames_.resize(p.nodes().size());
  for (std::size_t i = 0; i < p.nodes().size(); ++i) {
    const NodeId n(i);
    const auto& node = p.node(n);
    auto& f = frames_[i];
    f.seed = mix64(n.value + 1);
    f.inputs = static_cast<std::uint32_t>(node.in.size() + node.control_in.size());
    f.slots = f.inputs + static_cast<std::uint32_t>(node.out.size() + node.control_out.size());
    f.var = sem.access(n).kind != Access::Kind::none;
    f.path = sem.branches(n);
    const auto moves = sem.moves(n);
    for (std::uint32_t d = 0; d < node.in.size() && d < 31; ++d)
      if ((moves >> d & 1U) != 0) f.moved.push_back(d);
    if (f.var && (moves & kMovesVar) != 0 && f.inputs < 64) f.moved.push_back(f.inputs);
    for (auto k : f.moved) f.moved_mask |= std::uint64_t{1} << k;
    if (sem.evaluates(n) && node.in.size() <= kMaxArguments && node.out.size() <= kMaxResults)
      f.arguments = static_cast<std::uint32_t>(node.in.size());
    for (const auto* edges : {&node.in, &node.control_in, &node.out, &node.control_out})
      for (auto e : *edges) f.keeps.push_back(edges == &node.out || edges == &node.control_out ? sem.keeps_context(e) : false);
    f.fixed = node.frame.index() == 0;
    for (const auto* edges : {&node.in, &node.control_in, &node.out, &node.control_out})
      for (auto e : *edges) f.fixed = f.fixed && p.edge(e).frame.index() == 0 && !p.edge(e).call;
    if (!f.fixed) continue;
    for (const auto* edges : {&node.in, &node.control_in})
      for (auto d : *edges) f.reads.push_back(codec.root_column(d));
    f.writes = f.reads;
    for (const auto* edges : {&node.out, &node.control_out})
      for (auto e : *edges) f.writes.push_back(codec.root_column(e));
    if (f.var) {
      const auto x = static_cast<std::uint32_t>(Codec::column(sem.access(n).var));
      f.reads.push_back(x);
      f.writes.push_back(x);
    }
    if (f.path) {
      f.reads.push_back(codec.path_column());
      f.writes.push_back(codec.path_column());
    }
    f.record = codec.root_record(n);
    f.end = f.record.column + 1;
    for (auto col : f.writes) f.end = std::max(f.end, col + 1);
  }
  for (std::size_t k = 0; k < kMaxMoved; ++k) probes_.push_back(Tensor::atom("moved." + std::to_string(k)));
}

void Firings::resolve(Transition t) {
  if (t == resolved_t_) return;
  resolved_t_ = t;
  resolved_.clear();
  const auto& node = sem_.program().node(t.node);
  for (const auto* edges : {&node.in, &node.control_in})
    for (auto d : *edges) resolved_.push_back(sem_.in_slot(d, t.context));
  const auto out = sem_.out_context(t.node, t.context);
  for (const auto* edges : {&node.out, &node.control_out})
    for (auto e : *edges) resolved_.push_back(sem_.out_slot(e, t.context, out));
  resolved_record_ = sem_.record_context(t);
}

void Firings::read(std::span<const Code> row, Transition t, const Frame& f) {
  if (f.fixed && t.context == kRootContext) {
    key_.resize(f.reads.size());  // written in place: this runs at every firing
    for (std::size_t i = 0; i < f.reads.size(); ++i) key_[i] = f.reads[i] < row.size() ? row[f.reads[i]] : kEmptyCode;
  } else {
    key_.clear();
    resolve(t);
    const RowView view{codec_, row};
    for (std::size_t i = 0; i < f.inputs; ++i) key_.push_back(codec_.at(row, resolved_[i], view.block(resolved_[i].context)));
    if (f.var) {
      const auto x = Codec::column(sem_.access(t.node).var);
      key_.push_back(x < row.size() ? row[x] : kEmptyCode);
    }
    if (f.path) {
      const auto p = codec_.path_column();
      key_.push_back(p < row.size() ? row[p] : 0);
    }
  }
  // S-MOVE: a tensor t only moves is not part of what its effect depends on.
  for (auto p : f.moved)
    if (codec_.tensor(key_[p])) key_[p] = kAnyTensor;
}

Code Firings::moved(std::span<const Code> row, Transition t, const Frame& f, std::size_t k) const {
  const auto p = f.moved[k];
  std::size_t col = 0;
  if (f.fixed && t.context == kRootContext) col = f.reads[p];
  else if (p < f.inputs) return codec_.at(row, resolved_[p]);
  else col = Codec::column(sem_.access(t.node).var);
  return col < row.size() ? row[col] : kEmptyCode;
}

bool Firings::dead(const RowView& v, Transition t) const {
  const auto& node = sem_.program().node(t.node);
  for (const auto* edges : {&node.in, &node.control_in})
    for (auto d : *edges)
      if (v.holds(sem_.in_slot(d, t.context)) == Holds::dead) return true;
  return false;
}

FrameId Firings::fire(std::span<const Code> row, Found found, std::size_t r, Row& out, bool finish) {
  const bool transient = found.effect == kTransient;
  const auto& e = transient ? transient_ : effects_[found.effect];
  const auto& f = *e.frame;
  const auto t = found.t;
  const auto* w = (transient ? transient_writes_.data() : writes_.data() + e.writes) + r * (f.slots + extra(f));
  const bool fixed = f.fixed && t.context == kRootContext;
  if (!fixed) resolve(t);
  // S-MOVE: the tensors t moves, read before anything is written (out may be row).
  moved_.clear();
  if (e.moves)
    for (std::size_t k = 0; k < f.moved.size(); ++k) moved_.push_back(moved(row, t, f, k));
  const auto value = [&](Code c) { return c >= kMoved ? moved_[c - kMoved] : c; };
  if (out.data() != row.data()) out.assign(row.begin(), row.end());
  if (fixed) {
    if (out.size() < f.end) out.resize(f.end, kEmptyCode);
    for (std::size_t i = 0; i < f.writes.size(); ++i) out[f.writes[i]] = value(w[i]);
    out[f.record.column] |= f.record.mask;
    return {};
  }
  FrameId exceeds;
  const auto& ctx = sem_.contexts();
  // C-DEPTH: a token put in a new context beyond the bounds.
  for (std::size_t i = f.inputs; i < f.slots; ++i)
    if (const auto s = resolved_[i]; w[i] != kEmptyCode && s.context != t.context && ctx.beyond(s.context, bounds_) &&
                                     codec_.at(out, s) == kEmptyCode)
      exceeds = ctx[s.context].frame;
  for (std::size_t i = 0; i < f.slots; ++i) codec_.put(out, resolved_[i], value(w[i]));
  codec_.record(out, t.node, resolved_record_);
  if (f.var) out[Codec::column(sem_.access(t.node).var)] = value(w[f.slots]);
  if (f.path) out[codec_.path_column()] = w[f.slots + (f.var ? 1 : 0)];  // put() made the fixed part
  // A context is in the row exactly when it holds something.
  for (std::size_t i = 0; i < f.inputs; ++i)
    if (i == 0 || resolved_[i].context != resolved_[i - 1].context) codec_.trim(out, resolved_[i].context);
  if (finish) {
    // C-FINISHED: the contexts no token can reach any more leave the state.
    sem_.touched(t, work_);
    if (e.keeps) std::erase(work_, t.context);
    ChangingRow changing(codec_, out);
    sem_.finished(changing, work_, [&](ContextId c) {
      codec_.leave(out, c);
      changing.changed();
    });
  }
  return exceeds;
}

void Firings::prefetch(std::span<const Code> row, Transition t) {
  const auto& f = frames_[t.node.index()];
  if (!f.fixed || t.context != kRootContext || row.size() < f.end) return;
  std::uint64_t h = f.seed;
  for (std::size_t p = 0; p < f.reads.size(); ++p) {
    const auto code = row[f.reads[p]];
    h = absorb(h, p < 64 && (f.moved_mask >> p & 1U) != 0 && codec_.tensor(code) ? kAnyTensor : code);
  }
  tfsem::prefetch(&slots_[mix64(h) & (slots_.size() - 1)]);
}

std::uint64_t Firings::hash(const Frame& f, std::span<const Code> key) {
  std::uint64_t h = f.seed;
  for (auto code : key) h = absorb(h, code);
  return mix64(h);
}

const Firings::Effect* Firings::lookup(NodeId n, std::span<const Code> key, std::uint64_t h) const {
  const auto tag = h & ~kIndex;
  const auto mask = slots_.size() - 1;
  for (auto pos = h & mask; slots_[pos] != 0; pos = (pos + 1) & mask) {
    if ((slots_[pos] & ~kIndex) != tag) continue;
    const auto& e = effects_[(slots_[pos] & kIndex) - 1];
    if (e.hash != h || e.node != n) continue;
    if (std::equal(key.begin(), key.end(), e.key_codes(key.size(), keys_))) return &e;
  }
  return nullptr;
}

Firings::Effect Firings::blank(NodeId n, const Frame& f, std::span<const Code> key, std::uint64_t h) {
  if (effects_.size() + 2 > kIndex) throw std::length_error("firings: 2^32 effects");  // S-EVAL makes two at once
  Effect e{.hash = h, .frame = &f, .node = n, .writes = static_cast<std::uint32_t>(writes_.size()), .count = 0,
           .key = static_cast<std::uint32_t>(keys_.size()), .overwrites = false, .moves = false, .keeps = false, .evaluates = false, .checked = false, .inline_key = {}};
  if (key.size() <= kInline) std::copy(key.begin(), key.end(), e.inline_key);
  else keys_.insert(keys_.end(), key.begin(), key.end());
  return e;
}

const Firings::Effect& Firings::insert(const Effect& e) {
  effects_.push_back(e);
  place(effects_.size() - 1);
  if (effects_.size() * 2 > slots_.size()) grow();
  return effects_.back();
}

void Firings::place(std::size_t index) {
  const auto mask = slots_.size() - 1;
  auto pos = effects_[index].hash & mask;
  while (slots_[pos] != 0) pos = (pos + 1) & mask;
  slots_[pos] = slot(effects_[index].hash, index);
}

const Firings::Effect& Firings::effect(std::span<const Code> row, Transition t) {
  const auto& f = frames_[t.node.index()];
  read(row, t, f);
  const auto h = hash(f, key_);
  if (const auto* found = lookup(t.node, key_, h)) return *found;
  auto e = blank(t.node, f, key_, h);
  const auto args = std::span(key_).first(f.arguments);
  if (args.empty() || !std::all_of(args.begin(), args.end(), [&](Code c) { return codec_.tensor(c); }))
    compute(row, t, f, e);
  else if (evaluate(row, t, f, e) && evaluated_++ >= kMaxEvaluated)
    return transient(e);
  return insert(e);
}

const Firings::Effect& Firings::transient(Effect e) {
  transient_writes_.assign(writes_.begin() + e.writes, writes_.end());
  writes_.resize(e.writes);
  keys_.resize(e.key);
  transient_ = e;
  return transient_;
}

void Firings::grow() {
  slots_.assign(slots_.size() * 2, 0);
  for (std::size_t i = 0; i < effects_.size(); ++i) place(i);
}

bool Firings::evaluate(std::span<const Code> row, Transition t, const Frame& f, Effect& e) {
  // S-EVAL: the effect on any arguments has kAnyTensor for each of them in
  // its key, and in its writes kEvaluated + j for the j-th result and
  // kArgument + i for the i-th argument left where it was (a loop invariant's).
  any_.assign(key_.begin(), key_.end());
  std::fill_n(any_.begin(), f.arguments, kAnyTensor);
  const auto h = hash(f, any_);
  const auto width = f.slots + extra(f);
  const auto outputs = sem_.program().node(t.node).out.size();
  const auto results = [&] {
    boost::container::small_vector<Tensor, 4> args;
    for (std::size_t i = 0; i < f.arguments; ++i) args.push_back(std::get<Tensor>(codec_.decode(key_[i])));
    return sem_.evaluate(t.node, {args.data(), args.size()});
  };
  const auto* any = lookup(t.node, any_, h);
  if (any == nullptr) {
    compute(row, t, f, e);
    if (e.count != 1)
      throw std::logic_error("S-EVAL: firing " + transition_to_string(sem_.program(), sem_.contexts(), t) + " has " +
                             std::to_string(e.count) + " results");
    auto made = blank(t.node, f, any_, h);
    made.count = 1;
    made.overwrites = e.overwrites;
    made.keeps = e.keeps;
    // f's results, where the firing wrote tensors (not DEAD, C-DEAD).
    bool live = false;
    for (std::size_t j = 0; j < outputs; ++j) live = live || codec_.tensor(writes_[e.writes + f.inputs + j]);
    const auto r = live ? results() : Tuple{};
    for (std::size_t i = 0; i < width; ++i) {
      auto w = writes_[e.writes + i];
      if (const auto j = i - f.inputs; live && i >= f.inputs && j < outputs && w == codec_.encode(r[j])) {
        w = kEvaluated + static_cast<Code>(j);
        made.evaluates = true;
      } else if (i < f.arguments && w == key_[i]) {
        w = kArgument + static_cast<Code>(i);
      }
      writes_.push_back(w);
    }
    insert(made);
    return false;
  }
  e.count = 1;
  e.overwrites = any->overwrites;
  e.keeps = any->keeps;
  const auto r = any->evaluates ? results() : Tuple{};
  for (std::size_t i = 0; i < width; ++i) {
    const auto w = writes_[any->writes + i];
    if (w >= kEvaluated && w < kEvaluated + outputs) writes_.push_back(codec_.encode(r[w - kEvaluated]));
    else if (w >= kArgument && w < kArgument + f.arguments) writes_.push_back(key_[w - kArgument]);
    else writes_.push_back(w);
  }
  // Each effect on any arguments is checked once, on arguments other than
  // those it was made from.
  auto& made = effects_[static_cast<std::size_t>(any - effects_.data())];
  if (made.checked) return true;
  made.checked = true;
  resolve(t);
  const auto s = codec_.unpack(row, std::span<const Slot>(resolved_).first(f.inputs), f.var);
  concrete_.clear();
  const bool same = successors(s, t, f, concrete_) == 1 &&
                    std::equal(concrete_.begin(), concrete_.end(), writes_.end() - static_cast<std::ptrdiff_t>(width), writes_.end());
  if (!same)
    throw std::logic_error("S-EVAL: firing " + transition_to_string(sem_.program(), sem_.contexts(), t) +
                           " writes what its results and arguments alone do not give");
  return true;
}

void Firings::compute(std::span<const Code> row, Transition t, const Frame& f, Effect& e) {
  resolve(t);
  const std::span<const Slot> slots(resolved_);
  const auto s = codec_.unpack(row, slots.first(f.inputs), f.var);
  const auto x = sem_.access(t.node).var;
  bool probed = false;
  for (auto p : f.moved) probed = probed || key_[p] == kAnyTensor;
  if (!probed) {
    e.count = successors(s, t, f, writes_);
  } else {
    // S-MOVE: computed on stand-ins for the tensors t moves, and checked
    // against the firing on the tensors themselves.
    auto stand_in = s;
    for (std::size_t k = 0; k < f.moved.size(); ++k) {
      const auto p = f.moved[k];
      if (key_[p] != kAnyTensor) continue;
      if (p < f.inputs) stand_in.in_transit.insert_or_assign(slots[p], probes_[k]);
      else stand_in.var_value[x.index()] = probes_[k];
    }
    const auto start = writes_.size();
    e.count = successors(stand_in, t, f, writes_);
    concrete_.clear();
    bool same = successors(s, t, f, concrete_) == e.count && concrete_.size() == writes_.size() - start;
    for (std::size_t i = 0; same && i < concrete_.size(); ++i) {
      const auto w = writes_[start + i];
      e.moves = e.moves || w >= kMoved;
      same = (w >= kMoved ? moved(row, t, f, w - kMoved) : w) == concrete_[i];
    }
    if (!same)
      throw std::logic_error("S-MOVE: firing " + transition_to_string(sem_.program(), sem_.contexts(), t) +
                             " inspects a tensor its rule says it only moves");
  }
  // A result that leaves a live token on an edge of t's own context, which a
  // node there will take, lets nothing of that context go.
  e.keeps = true;
  for (std::uint32_t r = 0; r < e.count; ++r) {
    const auto* w = writes_.data() + e.writes + r * (f.slots + extra(f));
    bool keeps = false;
    for (std::size_t i = f.inputs; i < f.slots; ++i)
      keeps = keeps || (f.keeps[i] && slots[i].context == t.context && Codec::holds(w[i]) == Holds::live);
    e.keeps = e.keeps && keeps;
  }
  const auto& node = sem_.program().node(t.node);
  const auto& dep = sem_.dependence();
  e.overwrites = dep.may_overwrite(t.node) && dep.overwrites(t.node, s.at(node.in[0], slots[0].context),
                                                             s.at(node.in[1], slots[1].context), dead(view(row), t));
}

std::uint32_t Firings::successors(const State& s, Transition t, const Frame& f, std::vector<Code>& out) {
  const std::span<const Slot> slots(resolved_);
  const auto x = sem_.access(t.node).var;
  const Transition record{t.node, resolved_record_};
  const auto encode = [&](const Content& c) {
    if (const auto* v = std::get_if<Tensor>(&c))
      for (std::size_t k = 0; k < f.moved.size(); ++k)
        if (v->identity() == probes_[k].identity()) return kMoved + static_cast<Code>(k);
    return codec_.encode(c);
  };
  ++computed_;
  std::uint32_t count = 0;
  for (const auto& succ : sem_.apply(s, t)) {
    // S-FRAME: only t's slots, t's record, VarValue(x) and, for a Switch, the path condition change.
    const bool frame = succ.fired.size() == 1 && *succ.fired.begin() == record &&
                       std::all_of(succ.in_transit.begin(), succ.in_transit.end(),
                                   [&](const auto& entry) { return std::find(slots.begin(), slots.end(), entry.first) != slots.end(); });
    bool vars = succ.var_value.size() == s.var_value.size();
    for (std::size_t y = 0; vars && y < s.var_value.size(); ++y)
      if (!(f.var && y == x.index()))
        vars = vars && (succ.var_value[y].identity() == s.var_value[y].identity() || succ.var_value[y] == s.var_value[y]);
    if (!frame || !vars || (!f.path && succ.path != s.path))
      throw std::logic_error("S-FRAME: firing " + transition_to_string(sem_.program(), sem_.contexts(), t) +
                             " changed a slot outside its frame");
    // S-DROP: an output no one fetches is stored as GO, whatever t put there.
    for (const auto slot : slots) {
      const auto& edge = sem_.program().edge(slot.edge);
      const auto& c = succ.at(slot.edge, slot.context);
      out.push_back(encode(edge.is_output() && sem_.program().fetch(edge).empty() && !is_empty(c) ? Content{Go{}} : c));
    }
    if (f.var) out.push_back(encode(succ.var_value[x.index()]));
    if (f.path) out.push_back(codec_.encode(succ.path));
    ++count;
  }
  return count;
}

}  // namespace tfsem::explorer
