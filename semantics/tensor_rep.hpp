// The representation of a tensor and the table of terms, shared by
// tensor.cpp (values, order, text) and term_table.cpp (hash-consing). Private
// to those two files.
#pragma once

#include "semantics/tensor.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

namespace tfsem {

// The hash is published once computed: two threads that ask at once both
// compute the same value and store it, so a reader sees either no hash yet or
// the hash (release/acquire on `hashed`), never a torn one. A term's is set
// when it is made, and the term leaves the table of terms when it is freed.
struct Tensor::Rep {
  template <class... A>
  explicit Rep(A&&... a) : v(std::forward<A>(a)...) {}
  Rep(const Rep&) = delete;
  Rep& operator=(const Rep&) = delete;
  ~Rep();
  std::variant<Dense, Term, Error> v;
  mutable std::atomic<std::size_t> hash{0};
  mutable std::atomic<bool> hashed{false};
};

// The terms alive, each once. Memory policy: reference counting. A term lives
// while a tensor (a state's value, an argument of a live term, an explorer's
// table of tensors) refers to it; its entry here holds only a weak reference,
// so the table never keeps a term alive, and a long search or a run of many
// graphs holds the terms it still uses, not every term it ever made.
//
// Sharded by hash, each shard an open-addressed table (linear probing) under
// its own lock. An entry's term is not destroyed while the entry exists: the
// term's destructor removes it, under that lock, first. A lookup that finds a
// term whose last reference has just gone (its weak reference expired, its
// destructor waiting for the lock) puts the new term in that entry, and the
// destructor then finds its entry gone.
class Tensor::TermTable {
 public:
  static TermTable& instance();

  Tensor intern(bool atom, std::string head, std::vector<Tensor> args);
  void erase(const Rep& rep);
  std::size_t size();

 private:
  struct Entry {
    std::size_t hash = 0;
    const Rep* rep = nullptr;  // null: a free entry
    std::weak_ptr<const Rep> weak;
  };
  struct Shard {
    std::mutex mutex;
    std::vector<Entry> entries;  // a power of two of them, at most three quarters in use
    std::size_t used = 0;
  };
  static constexpr std::size_t kShards = 64;

  Shard& shard(std::size_t hash);
  static void grow(Shard& s);
  static void remove(Shard& s, std::size_t at);
  std::array<Shard, kShards> shards_;
};

}  // namespace tfsem
