#include "explorer/wire.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace tfsem::explorer::wire {

namespace {

enum class Tag : std::uint8_t { empty, go, dead, var, tensor };

// After a tensor's kind (Tensor::Kind): a compound term written before in the
// same tensor, by its index among them (numbered as they end).
constexpr std::uint8_t kSharedTerm = 3;

bool compound(const Tensor& t) { return t.is_term() && !t.as_term().args.empty(); }

}  // namespace

void Writer::raw(const void* p, std::size_t n) {
  const auto* c = static_cast<const char*>(p);
  out_.insert(out_.end(), c, c + n);
}

void Writer::text(const std::string& s) {
  u32(static_cast<std::uint32_t>(s.size()));
  raw(s.data(), s.size());
}

void Writer::tensor(const Tensor& t) {
  const auto start = out_.size();
  u32(0);  // its length, set below
  std::unordered_map<const void*, std::uint32_t> written;
  value(t, written);
  const auto length = static_cast<std::uint32_t>(out_.size() - start - sizeof(std::uint32_t));
  std::memcpy(out_.data() + start, &length, sizeof length);
}

void Writer::value(const Tensor& t, std::unordered_map<const void*, std::uint32_t>& written) {
  if (compound(t)) {
    if (const auto it = written.find(t.identity()); it != written.end()) {
      u8(kSharedTerm);
      u32(it->second);
      return;
    }
  }
  u8(static_cast<std::uint8_t>(t.kind()));
  switch (t.kind()) {
    case Tensor::Kind::dense: {
      const auto& d = t.as_dense();
      u8(static_cast<std::uint8_t>(d.dtype()));
      u32(static_cast<std::uint32_t>(d.shape.size()));
      for (auto n : d.shape) u64(static_cast<std::uint64_t>(n));
      std::visit([&](const auto& b) { raw(b.data(), static_cast<std::size_t>(b.size()) * sizeof(b[0])); }, d.data);
      break;
    }
    case Tensor::Kind::term: {
      const auto& term = t.as_term();
      text(term.head);
      u8(term.atom ? 1 : 0);
      u32(static_cast<std::uint32_t>(term.args.size()));
      for (const auto& a : term.args) value(a, written);
      if (compound(t)) written.emplace(t.identity(), static_cast<std::uint32_t>(written.size()));
      break;
    }
    case Tensor::Kind::error:
      u8(static_cast<std::uint8_t>(t.as_error().kind));
      text(t.as_error().message);
      break;
  }
}

void Writer::content(const Content& c) {
  if (const auto* x = std::get_if<VarId>(&c)) {
    u8(static_cast<std::uint8_t>(Tag::var));
    u32(x->value);
  } else if (const auto* t = std::get_if<Tensor>(&c)) {
    u8(static_cast<std::uint8_t>(Tag::tensor));
    tensor(*t);
  } else {
    u8(static_cast<std::uint8_t>(is_empty(c) ? Tag::empty : is_dead(c) ? Tag::dead : Tag::go));
  }
}

void Writer::context(ContextId c) {
  const auto& contexts = sem_.contexts();
  std::vector<ContextId> stack;
  for (; c != kRootContext; c = contexts[c].parent) stack.push_back(c);
  u32(static_cast<std::uint32_t>(stack.size()));
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
    const auto& e = contexts[*it];
    u32(e.frame.value);
    u32(e.iteration);
    u8(contexts.is_call(*it) ? 1 : 0);
  }
}

void Writer::transition(Transition t) {
  u32(t.node.value);
  context(t.context);
}

void Writer::steps(std::span<const Step> steps) {
  u32(static_cast<std::uint32_t>(steps.size()));
  for (const auto& s : steps) {
    transition(s.transition());
    u32(s.choice);
  }
}

void Writer::state(const State& s) {
  const auto& contexts = sem_.contexts();
  for (const auto& v : s.var_value) tensor(v);
  // InTransit and the fired records in the canonical order of their contexts.
  std::vector<const std::pair<Slot, Content>*> slots;
  for (const auto& entry : s.in_transit) slots.push_back(&entry);
  std::sort(slots.begin(), slots.end(), [&](auto* a, auto* b) {
    return a->first.edge != b->first.edge ? a->first.edge < b->first.edge : contexts.before(a->first.context, b->first.context);
  });
  u32(static_cast<std::uint32_t>(slots.size()));
  for (const auto* entry : slots) {
    u32(entry->first.edge.value);
    context(entry->first.context);
    content(entry->second);
  }
  std::vector<Transition> fired(s.fired.begin(), s.fired.end());
  std::sort(fired.begin(), fired.end(), [&](Transition a, Transition b) {
    return a.node != b.node ? a.node < b.node : contexts.before(a.context, b.context);
  });
  u32(static_cast<std::uint32_t>(fired.size()));
  for (auto t : fired) transition(t);
  u32(s.retired);
  path(s.path);
}

void Writer::path(const PathCondition& p) {
  u32(static_cast<std::uint32_t>(p.size()));
  for (const auto& l : p) {
    tensor(l.term);
    u8(l.value ? 1 : 0);
  }
}

void Reader::raw(void* p, std::size_t n) { std::memcpy(p, take(n).data(), n); }

std::span<const char> Reader::take(std::size_t n) {
  if (n > in_.size() - at_) throw std::runtime_error("wire: a message ends early");
  at_ += n;
  return in_.subspan(at_ - n, n);
}

std::uint8_t Reader::u8() {
  std::uint8_t v;
  raw(&v, sizeof v);
  return v;
}

std::uint32_t Reader::u32() {
  std::uint32_t v;
  raw(&v, sizeof v);
  return v;
}

std::uint64_t Reader::u64() {
  std::uint64_t v;
  raw(&v, sizeof v);
  return v;
}

std::uint64_t Reader::varint_near_end() {
  char tail[kLongestVarint] = {};  // the bytes left, then zeros: a varint past them ends in them
  const auto left = in_.size() - at_;
  std::copy(in_.begin() + static_cast<std::ptrdiff_t>(at_), in_.end(), tail);
  std::size_t n = 0;
  const auto v = get_varint(tail, n);
  if (n == 0 || n > left) throw std::runtime_error("wire: a message ends early");
  at_ += n;
  return v;
}

std::string Reader::text() {
  std::string s(u32(), '\0');
  raw(s.data(), s.size());
  return s;
}

Tensor Reader::tensor() {
  const auto length = u32();
  if (length > in_.size() - at_) throw std::runtime_error("wire: a message ends early");
  std::vector<Tensor> read;
  if (!tensors_) return tensor_value(read);
  const std::string_view bytes(in_.data() + at_, length);
  if (const auto it = tensors_->find(bytes); it != tensors_->end()) {
    at_ += length;
    return it->second;
  }
  auto t = tensor_value(read);
  tensors_->emplace(std::string(bytes), t);
  return t;
}

Tensor Reader::tensor_value(std::vector<Tensor>& read) {
  const auto tag = u8();
  if (tag == kSharedTerm) {
    const auto index = u32();
    if (index >= read.size()) throw std::runtime_error("wire: a reference to a term not read yet");
    return read[index];
  }
  switch (static_cast<Tensor::Kind>(tag)) {
    case Tensor::Kind::dense: {
      const auto dtype = static_cast<DType>(u8());
      Shape shape(u32());
      for (auto& n : shape) n = static_cast<std::int64_t>(u64());
      const auto count = element_count(shape);
      return with_element_type(dtype, [&](auto zero) {
        Buffer<decltype(zero)> b(count);
        raw(b.data(), static_cast<std::size_t>(count) * sizeof zero);
        return Tensor::dense(std::move(shape), Storage{std::move(b)});
      });
    }
    case Tensor::Kind::term: {
      auto head = text();
      const bool atom = u8() != 0;
      std::vector<Tensor> args;
      for (auto n = u32(); n > 0; --n) args.push_back(tensor_value(read));
      if (atom) return Tensor::atom(std::move(head));
      auto t = Tensor::apply(std::move(head), std::move(args));
      if (compound(t)) read.push_back(t);
      return t;
    }
    case Tensor::Kind::error: {
      const auto kind = static_cast<ErrorKind>(u8());
      return Tensor::error(kind, text());
    }
  }
  throw std::runtime_error("wire: an unknown tensor kind");
}

Content Reader::content() {
  switch (static_cast<Tag>(u8())) {
    case Tag::empty: return Empty{};
    case Tag::go: return Go{};
    case Tag::dead: return Dead{};
    case Tag::var: return VarId(u32());
    case Tag::tensor: return tensor();
  }
  throw std::runtime_error("wire: an unknown content tag");
}

ContextId Reader::context() {
  const auto& contexts = sem_.contexts();
  ContextId c = kRootContext;
  for (auto depth = u32(); depth > 0; --depth) {
    const FrameId frame(u32());
    const auto iteration = u32();
    c = u8() != 0 ? contexts.call(c, frame, iteration) : contexts.child(c, frame, iteration);
  }
  return c;
}

Transition Reader::transition() {
  const NodeId node(u32());
  return {node, context()};
}

Schedule Reader::steps() {
  Schedule out(u32());
  for (auto& s : out) {
    const auto t = transition();
    s = {t.node, t.context, u32()};
  }
  return out;
}

State Reader::state() {
  State s;
  for (std::size_t x = 0; x < sem_.program().variables().size(); ++x) s.var_value.push_back(tensor());
  for (auto n = u32(); n > 0; --n) {
    const EdgeId edge(u32());
    const auto c = context();
    s.put({edge, c}, content());
  }
  for (auto n = u32(); n > 0; --n) s.fired.insert(transition());
  s.retired = u32();
  s.path = path();
  return s;
}

PathCondition Reader::path() {
  PathCondition p;
  for (auto n = u32(); n > 0; --n) {
    auto term = tensor();
    p.add({std::move(term), u8() != 0});
  }
  return p;
}

}  // namespace tfsem::explorer::wire
