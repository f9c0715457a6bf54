// An optional value kept in a block of its own: 8 bytes in its holder, where
// std::optional<T> takes sizeof(T) and more. For a field that few of
// millions of records hold (an edge's initial contents, its fetch name): the
// records stay small, and the few that hold one pay for a block. A value
// type: copying a Boxed copies what it holds.
#pragma once

#include <cassert>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace tfsem {

namespace boxed_detail {
template <class U>
inline constexpr bool is_optional = false;
template <class U>
inline constexpr bool is_optional<std::optional<U>> = true;
}  // namespace boxed_detail

template <class T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(std::nullopt_t) {}  // NOLINT(google-explicit-constructor): as std::optional
  template <class U>
    requires(!std::is_same_v<std::remove_cvref_t<U>, Boxed> && !std::is_same_v<std::remove_cvref_t<U>, std::nullopt_t> &&
             !boxed_detail::is_optional<std::remove_cvref_t<U>> && std::is_constructible_v<T, U &&>)
  explicit(!std::is_convertible_v<U&&, T>) Boxed(U&& v) : box_(std::make_unique<T>(std::forward<U>(v))) {}
  template <class U>
    requires std::is_constructible_v<T, const U&>
  Boxed(const std::optional<U>& o) : box_(o ? std::make_unique<T>(*o) : nullptr) {}  // NOLINT(google-explicit-constructor)
  template <class U>
    requires std::is_constructible_v<T, U &&>
  Boxed(std::optional<U>&& o) : box_(o ? std::make_unique<T>(std::move(*o)) : nullptr) {}  // NOLINT(google-explicit-constructor)
  Boxed(const Boxed& o) : box_(o ? std::make_unique<T>(*o) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& o) {
    if (this != &o) box_ = o ? std::make_unique<T>(*o) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  ~Boxed() = default;

  [[nodiscard]] bool has_value() const { return box_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  [[nodiscard]] const T& operator*() const { return (assert(box_), *box_); }
  [[nodiscard]] T& operator*() { return (assert(box_), *box_); }
  [[nodiscard]] const T* operator->() const { return &**this; }
  [[nodiscard]] T* operator->() { return &**this; }
  void reset() { box_.reset(); }

 private:
  std::unique_ptr<T> box_;
};

}  // namespace tfsem
