#include "explorer/firings.hpp"

#include "semantics/hash.hpp"

#include <stdexcept>

namespace tfsem::explorer {

Firings::Firings(const Semantics& sem, Codec& codec) : sem_(sem), codec_(codec) {
  const auto& p = sem.program();
  frames_.resize(p.nodes().size());
  for (std::size_t i = 0; i < p.nodes().size(); ++i) {
    const auto& node = p.node(NodeId(i));
    auto& f = frames_[i];
    for (const auto* edges : {&node.in, &node.control_in})
      for (auto d : *edges) f.reads.push_back(static_cast<std::uint32_t>(codec.slot(d)));
    f.writes = f.reads;
    for (const auto* edges : {&node.out, &node.control_out})
      for (auto e : *edges) f.writes.push_back(static_cast<std::uint32_t>(codec.slot(e)));
    if (const auto a = sem.access(NodeId(i)); a.kind != Access::Kind::none) {
      f.reads.push_back(static_cast<std::uint32_t>(Codec::slot(a.var)));
      f.writes.push_back(static_cast<std::uint32_t>(Codec::slot(a.var)));
    }
  }
}

std::uint64_t Firings::key_hash(const Code* row, NodeId n) const {
  std::uint64_t h = mix64(n.value + 1);
  for (auto slot : frames_[n.index()].reads) h = (h ^ row[slot]) * 0xff51afd7ed558ccdULL;
  return mix64(h);
}

void Firings::enabled_nodes(const Code* row, std::vector<NodeId>& out) const {
  out.clear();
  for (std::size_t i = 0; i < frames_.size(); ++i)
    if (enabled(row, NodeId(i))) out.emplace_back(i);
}

void Firings::fire(const Code* row, NodeId n, std::size_t r, Code* out) {
  const auto& e = effect(row, n);
  const auto& writes = frames_[n.index()].writes;
  if (out != row) std::copy(row, row + width(), out);
  const auto* w = writes_.data() + e.writes + r * writes.size();
  for (std::size_t i = 0; i < writes.size(); ++i) out[writes[i]] = w[i];
}

const Firings::Effect& Firings::effect(const Code* row, NodeId n) {
  const auto& reads = frames_[n.index()].reads;
  const auto h = key_hash(row, n);
  const auto mask = slots_.size() - 1;
  auto pos = h & mask;
  for (; slots_[pos] != 0; pos = (pos + 1) & mask) {
    const auto& e = effects_[slots_[pos] - 1];
    if (e.hash != h || e.node != n.value) continue;
    bool same = true;
    for (std::size_t i = 0; i < reads.size() && same; ++i) same = keys_[e.key + i] == row[reads[i]];
    if (same) return e;
  }
  Effect e{h, n.value, static_cast<std::uint32_t>(keys_.size()), static_cast<std::uint32_t>(writes_.size()), 0, false};
  for (auto slot : reads) keys_.push_back(row[slot]);
  compute(row, n, e);
  effects_.push_back(e);
  slots_[pos] = static_cast<std::uint32_t>(effects_.size());
  if (effects_.size() * 2 > slots_.size()) grow();
  return effects_.back();
}

void Firings::grow() {
  slots_.assign(slots_.size() * 2, 0);
  const auto mask = slots_.size() - 1;
  for (std::uint32_t i = 0; i < effects_.size(); ++i) {
    auto pos = effects_[i].hash & mask;
    while (slots_[pos] != 0) pos = (pos + 1) & mask;
    slots_[pos] = i + 1;
  }
}

void Firings::compute(const Code* row, NodeId n, Effect& e) {
  const auto s = codec_.unpack(row);
  const auto& frame = frames_[n.index()];
  std::vector<bool> in_frame(width(), false);
  for (auto slot : frame.writes) in_frame[slot] = true;
  std::vector<Code> next(width());
  for (const auto& succ : sem_.fire(s, n)) {
    codec_.pack(succ, next.data());
    for (std::size_t slot = 0; slot < width(); ++slot)
      if (!in_frame[slot] && next[slot] != row[slot])
        throw std::logic_error("S-FRAME: firing '" + sem_.program().node(n).name +
                               "' changed a slot outside its frame");
    for (auto slot : frame.writes) writes_.push_back(next[slot]);
    ++e.count;
  }
  const auto& node = sem_.program().node(n);
  e.overwrites = node.op.kind == Op::Kind::assign && sem_.overwrites(n, s.in_transit[node.in[1].index()]);
}

}  // namespace tfsem::explorer
