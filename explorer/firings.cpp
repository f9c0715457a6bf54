#include "explorer/firings.hpp"

#include "semantics/hash.hpp"

#include <stdexcept>

namespace tfsem::explorer {

Firings::Firings(const Semantics& sem, Codec& codec) : sem_(sem), codec_(codec) {
  const auto& p = sem.program();
  frames_.resize(p.nodes().size());
  memo_.resize(p.nodes().size());
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

std::size_t Firings::KeyHash::operator()(const Key& k) const {
  return static_cast<std::size_t>(hash_words(k.data(), k.size()));
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
  const auto* w = e.writes.data() + r * writes.size();
  for (std::size_t i = 0; i < writes.size(); ++i) out[writes[i]] = w[i];
}

const Firings::Effect& Firings::effect(const Code* row, NodeId n) {
  key_.clear();
  for (auto slot : frames_[n.index()].reads) key_.push_back(row[slot]);
  auto& memo = memo_[n.index()];
  if (auto it = memo.find(key_); it != memo.end()) return it->second;
  auto e = compute(row, n);
  bytes_ += sizeof(Effect) + sizeof(Key) + 32 + (key_.size() + e.writes.size()) * sizeof(Code);
  return memo.emplace(key_, std::move(e)).first->second;
}

Firings::Effect Firings::compute(const Code* row, NodeId n) {
  const auto s = codec_.unpack(row);
  const auto& frame = frames_[n.index()];
  std::vector<bool> in_frame(width(), false);
  for (auto slot : frame.writes) in_frame[slot] = true;
  Effect e;
  std::vector<Code> next(width());
  for (const auto& succ : sem_.fire(s, n)) {
    codec_.pack(succ, next.data());
    for (std::size_t slot = 0; slot < width(); ++slot)
      if (!in_frame[slot] && next[slot] != row[slot])
        throw std::logic_error("S-FRAME: firing '" + sem_.program().node(n).name +
                               "' changed a slot outside its frame");
    for (auto slot : frame.writes) e.writes.push_back(next[slot]);
    ++e.count;
  }
  const auto& node = sem_.program().node(n);
  e.overwrites = node.op.kind == Op::Kind::assign && sem_.overwrites(n, s.in_transit[node.in[1].index()]);
  return e;
}

}  // namespace tfsem::explorer
