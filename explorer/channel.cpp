#include "explorer/channel.hpp"

#include "support/hash.hpp"

#include <algorithm>
#include <stdexcept>

namespace tfsem::explorer::channel {

namespace {

std::uint64_t zigzag(std::int64_t v) { return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63); }
std::int64_t unzigzag(std::uint64_t v) { return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1); }

std::uint32_t narrow(std::uint64_t v) {
  if (v > UINT32_MAX) throw std::runtime_error("channel: a number past 32 bits");
  return static_cast<std::uint32_t>(v);
}

// A number that a table of n entries must hold.
std::size_t checked(std::uint64_t v, std::size_t n) {
  if (v >= n) throw std::runtime_error("channel: a number not defined yet");
  return static_cast<std::size_t>(v);
}

// A move on the wire: its node times kKinds plus its kind.
constexpr std::uint64_t kKinds = 3;
static_assert(static_cast<std::uint64_t>(Move::Kind::commuting) == kKinds - 1, "Move::Kind's last value");

constexpr std::uint64_t kSeed = 0x9e3779b97f4a7c15ULL, kMul = 0xff51afd7ed558ccdULL;  // odd

}  // namespace

// ---- Canonical ----

std::uint64_t Canonical::row(std::span<const Code> row) {
  std::uint64_t fixed = kSeed, entries = 0, entry = 0;
  std::uint32_t start = 0;  // the current entry's column
  bool in_entry = false;
  codec_.columns(
      row,
      [&](std::uint32_t i, Codec::Column kind) {
        if (kind == Codec::Column::context) {
          if (in_entry) entries += mix64(entry);
          in_entry = true, start = i, entry = context(ContextId(row[i]));
        } else if (row[i] != 0) {
          const auto v = value(row[i], kind);
          if (in_entry) entry = (entry ^ (v * kSeed + (i - start))) * kMul;
          else fixed = (fixed ^ (v * kSeed + i)) * kMul;
        }
      },
      [&](Code id) { return codec_.frame_of(id); });
  if (in_entry) entries += mix64(entry);
  return mix64(fixed + entries);
}

std::uint64_t Canonical::value(Code code, Codec::Column kind) {
  const auto cached = [](std::vector<std::uint64_t>& table, std::size_t k, auto&& compute) {
    if (k >= table.size()) table.resize(k + 1, 0);
    if (table[k] == 0) table[k] = compute() | 1;  // 0 marks one not computed
    return table[k];
  };
  switch (kind) {
    case Codec::Column::content:
      if (!codec_.tensor(code)) return code;
      return cached(tensors_, code - codec_.first_tensor(), [&] { return std::get<Tensor>(codec_.decode(code)).hash(); });
    case Codec::Column::path: return cached(paths_, code, [&] { return codec_.path(code).hash(); });
    case Codec::Column::context:  // row() hashes an entry's context itself
    case Codec::Column::records:
    case Codec::Column::retired: break;
  }
  return code;
}

std::uint64_t Canonical::context(ContextId c) {
  if (c == kRootContext) return kSeed;
  if (c.index() < contexts_.size() && contexts_[c.index()] != 0) return contexts_[c.index()];
  const auto& contexts = codec_.semantics().contexts();
  const auto& e = contexts[c];
  auto h = hash_combine(context(e.parent), e.frame.value);
  h = hash_combine(hash_combine(h, e.iteration), contexts.is_call(c) ? 1 : 0) | 1;
  if (c.index() >= contexts_.size()) contexts_.resize(c.index() + 1, 0);
  return contexts_[c.index()] = h;
}

std::size_t Canonical::bytes() const { return (tensors_.capacity() + contexts_.capacity() + paths_.capacity()) * sizeof(std::uint64_t); }

// ---- Sender ----

void Sender::mark() {
  mark_.bytes = out_.size();
  mark_.numbered.clear();
  mark_.sent = false;
}

void Sender::take_back() {
  out_.resize(mark_.bytes);
  for (auto it = mark_.numbered.rbegin(); it != mark_.numbered.rend(); ++it) {
    switch (it->table) {
      case Table::tensors: tensors_.erase(reinterpret_cast<const void*>(it->key)), --next_tensor_; break;
      case Table::heads: {
        const std::string name = *head_names_.back();  // a copy: erase() must not read the key it frees
        heads_.erase(name), head_names_.pop_back();
        break;
      }
      case Table::contexts: contexts_[it->key] = 0, --next_context_; break;
      case Table::paths: paths_[it->key] = 0, --next_path_; break;
      case Table::codes: codes_[it->key] = 0; break;
    }
  }
  if (mark_.sent) last_.swap(mark_.last), last_parent_ = mark_.last_parent, last_level_ = mark_.last_level;
  mark();
}

void Sender::remember(Table table, std::vector<std::uint32_t>& numbers, std::size_t k, std::uint32_t number) {
  if (k >= numbers.size()) numbers.resize(k + 1, 0);
  mark_.numbered.push_back({table, k});  // first: take_back() undoes what it lists
  numbers[k] = number;
}

std::uint32_t Sender::code(Code c) {
  const auto k = c - codec_.first_tensor();
  if (k < codes_.size() && codes_[k] != 0) return codes_[k];
  const auto number = codec_.first_tensor() + tensor(std::get<Tensor>(codec_.decode(c)));
  remember(Table::codes, codes_, k, number);
  return number;
}

std::uint32_t Sender::tensor(const Tensor& t) {
  if (const auto it = tensors_.find(t.identity()); it != tensors_.end()) return it->second;
  const bool compound = t.is_term() && !t.as_term().args.empty();
  boost::container::small_vector<std::uint32_t, 4> args;
  std::uint32_t head_number = 0;
  bool fresh = false;
  if (compound) {
    for (const auto& a : t.as_term().args) args.push_back(tensor(a));  // defined first
    head_number = head(t.as_term().head, fresh);
  }
  wire::Writer w(codec_.semantics(), out_);
  w.varint(kTensor);
  if (compound) {
    // A compound term: its head's number (with the head's text the first time), its arguments' numbers.
    w.varint(std::uint64_t{head_number} << 2 | (fresh ? 2U : 0U) | 1U);
    if (fresh) w.varint(t.as_term().head.size()), w.raw(t.as_term().head.data(), t.as_term().head.size());
    w.varint(args.size());
    for (auto a : args) w.varint(a);
  } else {
    w.varint(0), w.tensor(t);  // a value, an atom or an error, as wire.hpp writes it
  }
  const auto it = tensors_.emplace(t.identity(), next_tensor_).first;
  try {
    mark_.numbered.push_back({Table::tensors, reinterpret_cast<std::uintptr_t>(t.identity())});
  } catch (...) {  // as if never numbered
    tensors_.erase(it);
    throw;
  }
  return next_tensor_++;
}

std::uint32_t Sender::head(const std::string& h, bool& fresh) {
  const auto [it, inserted] = heads_.try_emplace(h, static_cast<std::uint32_t>(head_names_.size()));
  fresh = inserted;
  if (inserted) {  // all three tables, or none (an allocation may fail)
    try {
      head_names_.push_back(&it->first);
    } catch (...) {
      heads_.erase(it);
      throw;
    }
    try {
      mark_.numbered.push_back({Table::heads, it->second});
    } catch (...) {
      head_names_.pop_back(), heads_.erase(it);
      throw;
    }
  }
  return it->second;
}

std::uint32_t Sender::context(ContextId c) {
  if (c == kRootContext) return 0;
  if (c.index() < contexts_.size() && contexts_[c.index()] != 0) return contexts_[c.index()];
  const auto& contexts = codec_.semantics().contexts();
  const auto& e = contexts[c];
  const auto parent = context(e.parent);  // defined first
  wire::Writer w(codec_.semantics(), out_);
  w.varint(kContext), w.varint(parent), w.varint(e.frame.value), w.varint(e.iteration);
  w.u8(contexts.is_call(c) ? 1 : 0);
  remember(Table::contexts, contexts_, c.index(), next_context_);
  return next_context_++;
}

std::uint32_t Sender::path(Code c) {
  if (c == 0) return 0;
  if (c < paths_.size() && paths_[c] != 0) return paths_[c];
  wire::Writer w(codec_.semantics(), out_);
  w.varint(kPath), w.path(codec_.path(c));
  remember(Table::paths, paths_, c, next_path_);
  return next_path_++;
}

void Sender::send(const Successor& s, std::span<const Transition> sleep, std::span<const Code> row) {
  if (!mark_.sent) {
    mark_.last = last_, mark_.last_parent = last_parent_, mark_.last_level = last_level_;
    mark_.sent = true;  // once the copy is made (it may fail)
  }
  // The row, the move's context and the sleep set's in the channel's numbers, any new one defined first.
  channel_row_.assign(row.begin(), row.end());
  codec_.columns(
      row,
      [&](std::uint32_t i, Codec::Column kind) {
        auto& c = channel_row_[i];
        if (kind == Codec::Column::content && codec_.tensor(c)) c = code(c);
        else if (kind == Codec::Column::path) c = path(c);
        else if (kind == Codec::Column::context) c = context(ContextId(c));
      },
      [&](Code id) { return codec_.frame_of(id); });
  while (!channel_row_.empty() && channel_row_.back() == kEmptyCode) channel_row_.pop_back();
  numbers_.clear();
  if (s.parent != kNone) numbers_.push_back(context(s.move.t.context));
  for (auto t : sleep) numbers_.push_back(context(t.context));

  const auto old = [&](std::size_t i) { return i < last_.size() ? last_[i] : kEmptyCode; };
  std::size_t changes = 0;
  for (std::size_t i = 0; i < channel_row_.size(); ++i) changes += channel_row_[i] != old(i) ? 1 : 0;

  // Written in place: room for the longest numbers, cut to what they took.
  const auto at = out_.size();
  // 9: the fields but the sleep set and the row's changes.
  out_.resize(at + wire::kLongestVarint * (9 + 2 * sleep.size() + 2 * changes));
  auto* p = out_.data() + at;
  const auto put = [&p](std::uint64_t v) { p = wire::put_varint(p, v); };
  const std::uint32_t parent = s.parent == kNone ? 0 : s.parent + 1;
  put(kSuccessor | zigzag(std::int64_t{parent} - std::int64_t{last_parent_}) << 2);
  last_parent_ = parent;
  auto number = numbers_.begin();
  // The move (0: none), flagged when its context is not the root, when its
  // result is not the first, and when the level is not the last one's (the
  // initial state's always follows).
  const bool level = s.level != last_level_;
  if (s.parent == kNone) {
    put(0);
  } else {
    const auto context = *number++;
    const auto move = std::uint64_t{s.move.t.node.value} * kKinds + static_cast<std::uint64_t>(s.move.kind);
    put((move << 3 | (level ? 4U : 0U) | (context != 0 ? 2U : 0U) | (s.result != 0 ? 1U : 0U)) + 1);
    if (context != 0) put(context);
    if (s.result != 0) put(s.result);
  }
  if (level || s.parent == kNone) put(zigzag(static_cast<std::int64_t>(s.level - last_level_)));
  last_level_ = s.level;
  put(s.paths);
  put(sleep.size());
  for (auto t : sleep) {
    const auto context = *number++;
    put(std::uint64_t{t.node.value} << 1 | (context != 0 ? 1U : 0U));
    if (context != 0) put(context);
  }
  // How many columns differ from the last row's, flagged when its length
  // differs (then the length follows), then each of them: the two codes'
  // exclusive or (small: the codes are numbered from 0 on the channel, and
  // fired records gain a bit) and the distance from the one before, in one
  // number when the distance is below 16.
  const bool length = channel_row_.size() != last_.size();
  put(changes << 1 | (length ? 1U : 0U));
  if (length) put(channel_row_.size());
  std::size_t after = 0;
  for (std::size_t i = 0; i < channel_row_.size(); ++i) {
    const auto x = channel_row_[i] ^ old(i);
    if (x == 0) continue;
    if (const auto gap = i + 1 - after; gap < 16) put(std::uint64_t{x} << 4 | gap);
    else put(std::uint64_t{x} << 4), put(gap);
    after = i + 1;
  }
  out_.resize(static_cast<std::size_t>(p - out_.data()));
  last_.swap(channel_row_);
}

std::size_t Sender::memory() const {
  constexpr std::size_t kNode = 48;  // an unordered_map's node and bucket, about
  return out_.capacity() + tensors_.size() * kNode + heads_.size() * (kNode + 32) +
         (contexts_.capacity() + paths_.capacity() + codes_.capacity()) * sizeof(std::uint32_t) +
         (last_.capacity() + mark_.last.capacity() + channel_row_.capacity()) * sizeof(Code) +
         mark_.numbered.capacity() * sizeof(Numbered);
}

// ---- Receiver ----

ContextId Receiver::context(std::uint64_t number) const { return contexts_[checked(number, contexts_.size())]; }

Code Receiver::code(Code number) {
  const auto k = checked(number - codec_.first_tensor(), tensors_.size());
  if (codes_[k] == 0) codes_[k] = codec_.encode(Content{tensors_[k]});
  return codes_[k];
}

Transition Receiver::transition(wire::Reader& in) {
  const auto v = in.varint();
  const NodeId node(narrow(checked(v >> 1, codec_.semantics().program().nodes().size())));
  return {node, (v & 1) != 0 ? context(in.varint()) : kRootContext};
}

void Receiver::define(wire::Reader& in, Record kind) {
  const auto& sem = codec_.semantics();
  if (kind == kTensor) {
    const auto form = in.varint();
    if ((form & 1) == 0) {
      tensors_.push_back(in.tensor());
    } else {
      if ((form & 2) != 0) {
        const auto n = checked(in.varint(), in.remaining() + 1);
        const auto text = in.take(n);
        heads_.emplace_back(text.data(), text.size());
      }
      auto head = heads_[checked(form >> 2, heads_.size())];
      std::vector<Tensor> args;
      for (auto n = checked(in.varint(), in.remaining() + 1); n > 0; --n) args.push_back(tensors_[checked(in.varint(), tensors_.size())]);
      tensors_.push_back(Tensor::apply(std::move(head), std::move(args)));
    }
    codes_.push_back(0);
  } else if (kind == kContext) {
    const auto parent = context(in.varint());
    const FrameId frame(narrow(checked(in.varint(), sem.program().frames().size())));
    const auto iteration = narrow(in.varint());
    const bool call = in.u8() != 0;
    contexts_.push_back(call ? sem.contexts().call(parent, frame, iteration) : sem.contexts().child(parent, frame, iteration));
  } else {
    paths_.push_back(codec_.encode(in.path()));
  }
}

bool Receiver::next(wire::Reader& in, Successor& s, SleepSet& sleep, Row& row) {
  std::uint64_t head = 0;
  for (;;) {  // the definitions before it
    if (in.done()) return false;
    head = in.varint();
    if ((head & 3) == kSuccessor) break;
    define(in, static_cast<Record>(head & 3));
  }
  last_parent_ = static_cast<std::uint32_t>(last_parent_ + static_cast<std::uint32_t>(unzigzag(head >> 2)));
  s.parent = last_parent_ == 0 ? kNone : last_parent_ - 1;
  s.move = {}, s.result = 0;
  bool level = true;  // the initial state's level always follows
  if (const auto move = in.varint(); move != 0) {
    const auto m = (move - 1) >> 3;
    const NodeId node(narrow(checked(m / kKinds, codec_.semantics().program().nodes().size())));
    s.move = {{node, ((move - 1) & 2) != 0 ? context(in.varint()) : kRootContext}, static_cast<Move::Kind>(m % kKinds)};
    if (((move - 1) & 1) != 0) s.result = narrow(in.varint());
    level = ((move - 1) & 4) != 0;
  }
  if (level) last_level_ += static_cast<std::uint64_t>(unzigzag(in.varint()));
  s.level = last_level_;
  s.paths = in.varint();
  sleep.resize(checked(in.varint(), in.remaining() + 1));
  for (auto& t : sleep) t = transition(in);
  std::sort(sleep.begin(), sleep.end());  // in this process's order of contexts
  const auto changes = in.varint();
  if ((changes & 1) != 0) last_.resize(checked(in.varint(), 8 * in.remaining() + 1 + last_.size()), kEmptyCode);
  std::size_t at = 0;
  for (auto n = checked(changes >> 1, last_.size() + 1); n > 0; --n) {
    const auto change = in.varint();
    const auto gap = (change & 15) != 0 ? change & 15 : in.varint();
    if (gap == 0) throw std::runtime_error("channel: a change at no distance");
    at = checked(at + gap, last_.size() + 1);
    last_[at - 1] ^= narrow(change >> 4);
  }

  // In this process's codes, the contexts' entries in descending order of their ids.
  row.assign(last_.begin(), last_.end());
  entries_.clear();
  codec_.columns(
      last_,
      [&](std::uint32_t i, Codec::Column kind) {
        auto& c = row[i];
        if (kind == Codec::Column::content && codec_.tensor(c)) c = code(c);
        else if (kind == Codec::Column::path) c = paths_[checked(c, paths_.size())];
        else if (kind == Codec::Column::context) c = context(c).value, entries_.push_back({c, i, 0});
      },
      [&](Code id) { return codec_.frame_of(context(id).value); });
  if (entries_.empty()) return true;
  // Each entry's block ends where the next entry starts; the sender leaves
  // out the row's trailing EMPTY codes, the end of the last block among
  // them, so that block is made whole again.
  for (std::size_t k = 0; k + 1 < entries_.size(); ++k) entries_[k].end = entries_[k + 1].start;
  auto& last = entries_.back();
  last.end = last.start + 1 + codec_.block_size(codec_.frame_of(last.id));
  row.resize(std::max<std::size_t>(row.size(), last.end), kEmptyCode);
  if (entries_.size() > 1) {
    reordered_.assign(row.begin(), row.begin() + entries_.front().start);  // the fixed part
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) { return a.id > b.id; });
    for (const auto& e : entries_) reordered_.insert(reordered_.end(), row.begin() + e.start, row.begin() + e.end);
    row.swap(reordered_);
  }
  return true;
}

std::size_t Receiver::memory() const {
  return tensors_.capacity() * sizeof(Tensor) + heads_.capacity() * 32 + (codes_.capacity() + paths_.capacity() + last_.capacity()) * sizeof(Code) +
         contexts_.capacity() * sizeof(ContextId) + entries_.capacity() * sizeof(Entry) + reordered_.capacity() * sizeof(Code);
}

// ---- Loopback ----

void Loopback::take_back() {
  if (mark_ < entries_.size()) {
    sleeps_.resize(entries_[mark_].sleep), rows_.resize(entries_[mark_].row);
    entries_.resize(mark_);
  }
}

void Loopback::send(const Successor& s, std::span<const Transition> sleep, std::span<const Code> row) {
  entries_.push_back({s, sleeps_.size(), rows_.size()});
  sleeps_.insert(sleeps_.end(), sleep.begin(), sleep.end());
  rows_.insert(rows_.end(), row.begin(), row.end());
}

bool Loopback::next(Successor& s, SleepSet& sleep, Row& row) {
  if (read_ == entries_.size()) {
    entries_.clear(), sleeps_.clear(), rows_.clear();
    read_ = mark_ = 0;
    return false;
  }
  const auto& e = entries_[read_++];
  const auto sleep_end = read_ < entries_.size() ? entries_[read_].sleep : sleeps_.size();
  const auto row_end = read_ < entries_.size() ? entries_[read_].row : rows_.size();
  s = e.s;
  sleep.assign(sleeps_.begin() + static_cast<std::ptrdiff_t>(e.sleep), sleeps_.begin() + static_cast<std::ptrdiff_t>(sleep_end));
  row.assign(rows_.begin() + static_cast<std::ptrdiff_t>(e.row), rows_.begin() + static_cast<std::ptrdiff_t>(row_end));
  return true;
}

std::size_t Loopback::memory() const {
  return entries_.capacity() * sizeof(Entry) + sleeps_.capacity() * sizeof(Transition) + rows_.capacity() * sizeof(Code);
}

}  // namespace tfsem::explorer::channel
