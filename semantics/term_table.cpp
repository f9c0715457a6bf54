#include "semantics/tensor_rep.hpp"
#include "support/hash.hpp"

namespace tfsem {

namespace {

std::size_t hash_of(bool atom, std::string_view head, const std::vector<Tensor>& args) {
  std::size_t h = hash_combine(atom ? 2 : 3, fnv1a(head));
  for (const auto& a : args) h = hash_combine(h, a.hash());
  return h;
}

// Frees a dying term's arguments without recursion: the outermost release on
// a thread frees, in a loop, the arguments of every term that dies meanwhile,
// so that freeing a term thousands of levels deep takes bounded stack.
void release(std::vector<Tensor>& args) {
  thread_local std::vector<Tensor>* pending = nullptr;
  if (pending != nullptr) {
    for (auto& a : args) pending->push_back(std::move(a));
    return;
  }
  std::vector<Tensor> list = std::move(args);
  pending = &list;
  while (!list.empty()) {
    const Tensor last = std::move(list.back());
    list.pop_back();
  }
  pending = nullptr;
}

}  // namespace

Tensor::Rep::~Rep() {
  if (auto* term = std::get_if<Term>(&v)) {
    TermTable::instance().erase(*this);
    release(term->args);
  }
}

Tensor::TermTable& Tensor::TermTable::instance() {
  static auto* table = new TermTable;  // never destroyed: terms may be freed during static destruction
  return *table;
}

Tensor::TermTable::Shard& Tensor::TermTable::shard(std::size_t hash) {
  return shards_[hash_combine(hash, 0) % kShards];  // the entries' slots take the hash's low bits as they are
}

void Tensor::TermTable::grow(Shard& s) {
  std::vector<Entry> old(std::max<std::size_t>(16, 2 * s.entries.size()));
  old.swap(s.entries);
  const auto mask = s.entries.size() - 1;
  for (auto& e : old) {
    if (e.rep == nullptr) continue;
    auto i = e.hash & mask;
    while (s.entries[i].rep != nullptr) i = (i + 1) & mask;
    s.entries[i] = std::move(e);
  }
}

// Empties entry `at`, moving back the entries after it that probing would no
// longer reach (deletion without tombstones).
void Tensor::TermTable::remove(Shard& s, std::size_t at) {
  const auto mask = s.entries.size() - 1;
  for (auto next = (at + 1) & mask; s.entries[next].rep != nullptr; next = (next + 1) & mask) {
    const auto home = s.entries[next].hash & mask;
    // The entry at `next` may move to `at` unless its home lies cyclically in (at, next].
    const bool stays = at <= next ? (at < home && home <= next) : (at < home || home <= next);
    if (!stays) {
      s.entries[at] = std::move(s.entries[next]);
      at = next;
    }
  }
  s.entries[at] = Entry{};
  --s.used;
}

Tensor Tensor::TermTable::intern(bool atom, std::string head, std::vector<Tensor> args) {
  const auto h = hash_of(atom, head, args);
  auto& s = shard(h);
  std::shared_ptr<Rep> made;  // declared before the lock: should an entry fail, it dies with the lock released
  const std::lock_guard lock(s.mutex);
  if (4 * (s.used + 1) > 3 * s.entries.size()) grow(s);
  const auto mask = s.entries.size() - 1;
  auto i = h & mask;
  for (; s.entries[i].rep != nullptr; i = (i + 1) & mask) {
    auto& e = s.entries[i];
    if (e.hash != h) continue;
    const auto& t = std::get<Term>(e.rep->v);
    // The arguments are interned already: equal terms are identical, and == says so at once.
    if (t.atom != atom || t.head != head || t.args != args) continue;
    if (auto live = e.weak.lock()) return Tensor(std::move(live));
    break;  // dying: the new term takes its entry
  }
  made = std::make_shared<Rep>(Term{std::move(head), std::move(args), atom});
  made->hash.store(h, std::memory_order_relaxed);
  made->hashed.store(true, std::memory_order_release);
  if (s.entries[i].rep == nullptr) ++s.used;
  s.entries[i] = Entry{h, made.get(), made};
  return Tensor(std::move(made));
}

void Tensor::TermTable::erase(const Rep& rep) {
  const auto h = rep.hash.load(std::memory_order_relaxed);
  auto& s = shard(h);
  const std::lock_guard lock(s.mutex);
  const auto mask = s.entries.size() - 1;
  for (auto i = h & mask; s.entries[i].rep != nullptr; i = (i + 1) & mask)
    if (s.entries[i].rep == &rep) return remove(s, i);
}

std::size_t Tensor::TermTable::size() {
  std::size_t n = 0;
  for (auto& s : shards_) {
    const std::lock_guard lock(s.mutex);
    n += s.used;
  }
  return n;
}

Tensor Tensor::atom(std::string name) { return TermTable::instance().intern(true, std::move(name), {}); }

Tensor Tensor::apply(std::string head, std::vector<Tensor> args) {
  return TermTable::instance().intern(false, std::move(head), std::move(args));
}

std::size_t Tensor::live_terms() { return TermTable::instance().size(); }

}  // namespace tfsem
