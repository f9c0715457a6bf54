// A vector that keeps its first N elements inline and spills to the heap past
// them, like boost::container::small_vector, with an append that the compiler
// inlines (boost's calls out of line at every push_back, which the executor
// does several times per node fired). Only what the executor uses: append,
// remove from the back or one element, clear, index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
#include <utility>

namespace tfsem::fast_exec {

template <class T, std::size_t N>
class InlineVector {
 public:
  InlineVector() = default;
  InlineVector(std::initializer_list<T> items) {
    for (const auto& x : items) push_back(x);
  }
  InlineVector(const InlineVector&) = delete;
  InlineVector& operator=(const InlineVector&) = delete;
  ~InlineVector() {
    clear();
    if (data_ != inline_data()) ::operator delete(data_, std::align_val_t{alignof(T)});
  }

  template <class... A>
  T& emplace_back(A&&... a) {
    if (size_ == capacity_) grow();
    return *new (data_ + size_++) T(std::forward<A>(a)...);
  }
  void push_back(const T& x) { emplace_back(x); }
  void push_back(T&& x) { emplace_back(std::move(x)); }
  void pop_back() { data_[--size_].~T(); }
  void clear() {
    for (std::size_t i = 0; i < size_; ++i) data_[i].~T();
    size_ = 0;
  }
  // Removes the element at `at`, keeping the order of the others.
  void erase(T* at) {
    for (T* p = at; p + 1 < end(); ++p) *p = std::move(p[1]);
    pop_back();
  }

  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](std::size_t i) { return data_[i]; }
  T& back() { return data_[size_ - 1]; }

 private:
  T* inline_data() { return std::launder(reinterpret_cast<T*>(inline_)); }
  void grow() {
    const auto capacity = capacity_ * 2;
    auto* bigger = static_cast<T*>(::operator new(capacity * sizeof(T), std::align_val_t{alignof(T)}));
    for (std::size_t i = 0; i < size_; ++i) {
      new (bigger + i) T(std::move(data_[i]));
      data_[i].~T();
    }
    if (data_ != inline_data()) ::operator delete(data_, std::align_val_t{alignof(T)});
    data_ = bigger;
    capacity_ = capacity;
  }

  alignas(T) unsigned char inline_[N * sizeof(T)];
  T* data_ = inline_data();
  std::size_t size_ = 0;
  std::size_t capacity_ = N;
};

}  // namespace tfsem::fast_exec
