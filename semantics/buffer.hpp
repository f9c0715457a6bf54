// The elements of a dense tensor, row-major: a fixed-size array that keeps up
// to 16 bytes of elements inline (a scalar, a small vector), so that making a
// scalar, as most kernels of a recursive program do, allocates nothing for its
// elements. Larger arrays live on the heap. Elements are not initialized.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>

namespace tfsem {

template <class T>
class Buffer {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  using Scalar = T;
  using Index = std::ptrdiff_t;
  static constexpr Index kInline = 16 / sizeof(T);

  Buffer() = default;
  template <class N>
    requires std::is_integral_v<N>
  explicit Buffer(N n) : size_(static_cast<Index>(n)) {
    if (size_ > kInline) data_ = new T[static_cast<std::size_t>(size_)];
  }
  static Buffer Constant(Index n, T v) {
    Buffer b(n);
    b.setConstant(v);
    return b;
  }
  Buffer(const Buffer& o) : Buffer(o.size_) { std::copy_n(o.data_, size_, data_); }
  Buffer(Buffer&& o) noexcept { take(o); }
  Buffer& operator=(const Buffer& o) {
    if (this != &o) *this = Buffer(o);
    return *this;
  }
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) take(o);
    return *this;
  }
  ~Buffer() { release(); }

  [[nodiscard]] Index size() const { return size_; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](Index i) { return data_[i]; }
  const T& operator[](Index i) const { return data_[i]; }
  void setConstant(T v) { std::fill_n(data_, size_, v); }

 private:
  [[nodiscard]] bool on_heap() const { return data_ != inline_; }
  void release() noexcept {
    if (on_heap()) delete[] data_;
  }
  // Takes o's elements, leaving it empty.
  void take(Buffer& o) noexcept {
    release();
    size_ = o.size_;
    if (o.on_heap()) {
      data_ = o.data_;
    } else {
      std::memcpy(inline_, o.inline_, static_cast<std::size_t>(size_) * sizeof(T));
      data_ = inline_;
    }
    o.size_ = 0;
    o.data_ = o.inline_;
  }

  T inline_[kInline];
  T* data_ = inline_;
  Index size_ = 0;
};

}  // namespace tfsem
