// A node's edges of one sort (its inputs by port, its outputs by port, its
// incoming or outgoing control edges). Most nodes have one or two of each
// sort: two are held in place, more in a block of their own. It is 16 bytes
// where a boost small_vector<EdgeId, 2> is 32, and a million-node Program
// holds four million of them (four in each Node): 64 MB less.
#pragma once

#include "semantics/ids.hpp"

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <new>

namespace tfsem {

class EdgeList {
 public:
  EdgeList() = default;
  EdgeList(const EdgeList& other) { *this = other; }
  EdgeList(EdgeList&& other) noexcept { take(other); }
  EdgeList& operator=(const EdgeList& other) {
    if (this != &other) {
      reserve(other.size_);  // may throw: the list is unchanged then
      std::copy(other.begin(), other.end(), data());
      size_ = other.size_;
    }
    return *this;
  }
  EdgeList& operator=(EdgeList&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  ~EdgeList() { release_block(); }

  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] EdgeId* begin() { return data(); }
  [[nodiscard]] EdgeId* end() { return data() + size_; }
  [[nodiscard]] const EdgeId* begin() const { return data(); }
  [[nodiscard]] const EdgeId* end() const { return data() + size_; }
  EdgeId& operator[](std::size_t i) {
    assert(i < size_);
    return data()[i];
  }
  const EdgeId& operator[](std::size_t i) const {
    assert(i < size_);
    return data()[i];
  }

  void push_back(EdgeId e) {
    reserve(size_ + 1);
    data()[size_++] = e;
  }
  void emplace_back(EdgeId e) { push_back(e); }
  // Grows or shrinks to n edges; new ones are invalid (a port with no edge yet).
  void resize(std::size_t n) {
    reserve(n);
    std::fill(data() + std::min<std::size_t>(size_, n), data() + n, EdgeId{});
    size_ = static_cast<std::uint32_t>(n);
  }

 private:
  static constexpr std::uint32_t kInPlace = 2;
  std::uint32_t size_ = 0;
  std::uint32_t capacity_ = kInPlace;  // more than kInPlace: the edges are in storage_.heap
  union Storage {
    Storage() : local{} {}
    EdgeId local[kInPlace];
    EdgeId* heap;
  } storage_;

  [[nodiscard]] bool on_heap() const { return capacity_ > kInPlace; }
  [[nodiscard]] EdgeId* data() { return on_heap() ? storage_.heap : storage_.local; }
  [[nodiscard]] const EdgeId* data() const { return on_heap() ? storage_.heap : storage_.local; }

  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    assert(n <= std::uint32_t{1} << 31);  // a node's edges: no more than the graph's, ids 32 bits
    const auto capacity = static_cast<std::uint32_t>(std::max<std::size_t>(n, 2 * std::size_t{capacity_}));
    auto* block = new EdgeId[capacity];
    std::copy(data(), data() + size_, block);
    release_block();
    storage_.heap = block;
    capacity_ = capacity;
  }
  void release_block() {
    if (on_heap()) delete[] storage_.heap;
  }
  // Frees the block, if any, leaving the list empty with its edges in place.
  void release() {
    release_block();
    ::new (&storage_) Storage();  // `local` the union's member again
    size_ = 0;
    capacity_ = kInPlace;
  }
  // Takes `other`'s edges (its block, or a copy of its edges in place), leaving it empty.
  void take(EdgeList& other) {
    if (other.on_heap()) {
      storage_.heap = other.storage_.heap;
    } else {
      std::copy(other.storage_.local, other.storage_.local + other.size_, storage_.local);
    }
    size_ = other.size_;
    capacity_ = other.capacity_;
    other.capacity_ = kInPlace;  // its block is ours now
    other.release();
  }
};

}  // namespace tfsem
