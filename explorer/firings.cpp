#include "explorer/firings.hpp"

#include "semantics/dependence.hpp"

#include "support/hash.hpp"
#include "support/prefetch.hpp"

#include <stdexcept>

namespace tfsem::explorer {

Firings::Firings(const Semantics& sem, Codec& codec, Bounds bounds)
    : sem_(sem), codec_(codec), bounds_(bounds), root_frames_(sem.program().nodes().size()) {}

const Firings::Frame& Firings::new_frame(Transition t) {
  if (const auto it = frames_.find(t); it != frames_.end()) return it->second;
  const auto& p = sem_.program();
  const auto& node = p.node(t.node);
  Frame f;
  for (const auto* edges : {&node.in, &node.control_in})
    for (auto d : *edges) f.reads.push_back(codec_.column(sem_.in_slot(d, t.context)));
  f.writes = f.reads;
  const auto& ctx = sem_.contexts();
  for (const auto* edges : {&node.out, &node.control_out})
    for (auto e : *edges) {
      const auto slot = sem_.out_slot(e, t.context);
      f.writes.push_back(codec_.column(slot));
      if (slot.context != t.context && ctx.beyond(slot.context, bounds_)) {  // C-DEPTH
        f.beyond.push_back(f.writes.back());
        f.beyond_frame = ctx[slot.context].frame;
      }
    }
  if (const auto a = sem_.access(t.node); a.kind != Access::Kind::none) {
    f.reads.push_back(static_cast<std::uint32_t>(Codec::column(a.var)));
    f.writes.push_back(static_cast<std::uint32_t>(Codec::column(a.var)));
  }
  f.seed = mix64(std::hash<Transition>{}(t) + 1);
  f.record = codec_.record(t.node, sem_.record_context(t));
  f.end = f.record.column + 1;
  for (auto col : f.writes) f.end = std::max(f.end, col + 1);
  if (t.context == kRootContext) return *(root_frames_[t.node.index()] = std::make_unique<Frame>(std::move(f)));
  return frames_.emplace(t, std::move(f)).first->second;
}

std::uint64_t Firings::key_hash(std::span<const Code> row, const Frame& f) {
  std::uint64_t h = f.seed;
  for (auto col : f.reads) h = (h ^ row[col]) * 0xff51afd7ed558ccdULL;
  return mix64(h);
}

bool Firings::dead(std::span<const Code> row, Transition t) const {
  const auto& node = sem_.program().node(t.node);
  for (const auto* edges : {&node.in, &node.control_in})
    for (auto d : *edges)
      if (codec_.holds(row, sem_.in_slot(d, t.context)) == Holds::dead) return true;
  return false;
}

FrameId Firings::fire(std::span<const Code> row, Found found, std::size_t r, Row& out, bool finish) {
  const auto& e = effects_[found.effect];
  const auto& f = *e.frame;
  if (out.data() != row.data()) out.assign(row.begin(), row.end());
  if (out.size() < f.end) out.resize(f.end, kEmptyCode);
  const auto* w = writes_.data() + e.writes + r * f.writes.size();
  for (std::size_t i = 0; i < f.writes.size(); ++i) out[f.writes[i]] = w[i];
  out[f.record.column] |= f.record.mask;
  if (finish && sem_.program().frames().size() > 1) {
    // C-FINISHED: the contexts no token can reach any more leave the state.
    sem_.touched(e.t, work_);
    sem_.finished(view(out), work_, [&](ContextId c) { codec_.leave(out, c); });
  }
  return e.exceeds;
}

void Firings::prefetch(std::span<const Code> row, Transition t) {
  const auto& f = frame(t);
  if (row.size() >= f.end) tfsem::prefetch(&slots_[key_hash(row, f) & (slots_.size() - 1)]);
}

const Firings::Effect& Firings::effect(std::span<const Code> row, Transition t) {
  const auto& f = frame(t);
  row = padded(row, f.end, padded_);
  const auto h = key_hash(row, f);
  const auto tag = h & ~kIndex;
  const auto mask = slots_.size() - 1;
  auto pos = h & mask;
  for (; slots_[pos] != 0; pos = (pos + 1) & mask) {
    if ((slots_[pos] & ~kIndex) != tag) continue;
    const auto& e = effects_[(slots_[pos] & kIndex) - 1];
    if (e.hash != h || e.t != t) continue;
    const auto* key = e.key_codes(f.reads.size(), keys_);
    bool same = true;
    for (std::size_t i = 0; i < f.reads.size() && same; ++i) same = key[i] == row[f.reads[i]];
    if (same) return e;
  }
  if (effects_.size() == kIndex) throw std::length_error("firings: 2^32 effects");
  Effect e{.hash = h, .t = t, .frame = &f, .writes = static_cast<std::uint32_t>(writes_.size()), .count = 0,
           .key = static_cast<std::uint32_t>(keys_.size()), .exceeds = {}, .overwrites = false, .inline_key = {}};
  if (f.reads.size() <= kInline)
    for (std::size_t i = 0; i < f.reads.size(); ++i) e.inline_key[i] = row[f.reads[i]];
  else
    for (auto col : f.reads) keys_.push_back(row[col]);
  compute(row, t, f, e);
  effects_.push_back(e);
  slots_[pos] = slot(h, effects_.size() - 1);
  if (effects_.size() * 2 > slots_.size()) grow();
  return effects_.back();
}

void Firings::grow() {
  slots_.assign(slots_.size() * 2, 0);
  const auto mask = slots_.size() - 1;
  for (std::size_t i = 0; i < effects_.size(); ++i) {
    auto pos = effects_[i].hash & mask;
    while (slots_[pos] != 0) pos = (pos + 1) & mask;
    slots_[pos] = slot(effects_[i].hash, i);
  }
}

void Firings::compute(std::span<const Code> row, Transition t, const Frame& f, Effect& e) {
  const auto s = codec_.unpack(row);
  Row before(row.begin(), row.end()), next;
  before.resize(std::max<std::size_t>(before.size(), f.end), kEmptyCode);
  std::vector<bool> in_frame;
  for (const auto& succ : sem_.apply(s, t)) {
    codec_.pack(succ, next);
    const auto width = std::max(next.size(), before.size());
    before.resize(width, kEmptyCode);
    next.resize(width, kEmptyCode);
    in_frame.assign(width, false);
    for (auto col : f.writes) in_frame[col] = true;
    for (std::size_t col = 0; col < width; ++col) {
      const auto expect = col == f.record.column ? (before[col] | f.record.mask) : before[col];
      if (!in_frame[col] && next[col] != expect)
        throw std::logic_error("S-FRAME: firing " + transition_to_string(sem_.program(), sem_.contexts(), t) +
                               " changed a slot outside its frame");
    }
    for (auto col : f.writes) writes_.push_back(next[col]);
    for (auto col : f.beyond)
      if (next[col] != kEmptyCode && before[col] == kEmptyCode) e.exceeds = f.beyond_frame;
    ++e.count;
  }
  const auto& node = sem_.program().node(t.node);
  const auto& dep = sem_.dependence();
  e.overwrites = dep.may_overwrite(t.node) && dep.overwrites(t.node, s.at(node.in[1], t.context));
}

}  // namespace tfsem::explorer
