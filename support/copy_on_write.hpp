// A value shared by its copies until one of them is changed, in 8 bytes. For
// a field that millions of records repeat (a node's attributes: every Const
// of a layer declares the same literal): a reader that makes one value per
// distinct text hands each record a reference to it, not a copy. An empty
// handle reads as T{}, and an empty container is kept as no block. The count
// of references is atomic, so the copies of one value may live and die on any
// threads; what is shared is never changed. One handle is as one object: it is
// not edited or assigned while another thread copies it (as std::shared_ptr).
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace tfsem {

template <class T>
class CopyOnWrite {
 public:
  CopyOnWrite() = default;
  CopyOnWrite(T value) {  // NOLINT(google-explicit-constructor): a T reads as one
    if constexpr (requires { value.empty(); })
      if (value.empty()) return;
    block_ = new Block{std::move(value)};
  }
  CopyOnWrite(const CopyOnWrite& o) noexcept : block_(o.block_) {
    if (block_) block_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  CopyOnWrite(CopyOnWrite&& o) noexcept : block_(std::exchange(o.block_, nullptr)) {}
  CopyOnWrite& operator=(CopyOnWrite o) noexcept {
    std::swap(block_, o.block_);
    return *this;
  }
  ~CopyOnWrite() { release(); }

  [[nodiscard]] const T& operator*() const { return block_ ? block_->value : empty(); }
  [[nodiscard]] const T* operator->() const { return &**this; }
  // The value to change: made this handle's own first if other handles share it.
  [[nodiscard]] T& edit() {
    if (!block_) {
      block_ = new Block{T{}};
    } else if (block_->refs.load(std::memory_order_acquire) != 1) {
      auto* own = new Block{block_->value};
      release();
      block_ = own;
    }
    return block_->value;
  }
  // Whether no other handle holds its value (an empty handle's value is
  // every empty handle's).
  [[nodiscard]] bool unique() const { return block_ != nullptr && block_->refs.load(std::memory_order_relaxed) == 1; }
  // Whether two handles share one value (for tests: the reader's sharing).
  [[nodiscard]] bool shares_with(const CopyOnWrite& o) const { return block_ != nullptr && block_ == o.block_; }

 private:
  struct Block {
    T value;
    std::atomic<std::uint32_t> refs{1};  // the handles: fewer than 2^32 (a record each)
  };
  static const T& empty() {
    static const T none{};
    return none;
  }
  void release() noexcept {
    if (block_ && block_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete block_;
    block_ = nullptr;
  }
  Block* block_ = nullptr;
};

}  // namespace tfsem
