// A string in 16 bytes, half a std::string's 32: up to 15 characters in
// place, a longer one in a block of its own. The names, kinds and JSON paths
// of a program's description and of its nodes and edges are such strings,
// nearly all short ("n123456", "tensor", "/edges/1234567"); a million-node
// graph holds three or four million edges, and their bytes are what loading
// it waits for on a machine that backs fresh memory slowly
// (docs/performance.md, "Loading large graphs").
//
// Layout: in place, byte 15 holds 15 - size, so that a string of 15
// characters ends in the NUL that byte is then; in a block, the first 8 bytes
// point to it and the last 8 hold the size with the top bit set (byte 15 on
// a little-endian machine, the only kind this layout is written for).
#pragma once

#include <bit>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tfsem {

class CompactString {
  static_assert(std::endian::native == std::endian::little, "the size's top byte is byte 15");

 public:
  static constexpr std::size_t kInPlace = 15;

  CompactString() noexcept { set_small(0); }
  CompactString(std::string_view s) { assign(s); }  // NOLINT(google-explicit-constructor): a string
  CompactString(const std::string& s) : CompactString(std::string_view(s)) {}  // NOLINT(google-explicit-constructor)
  CompactString(const char* s) : CompactString(std::string_view(s)) {}  // NOLINT(google-explicit-constructor)
  CompactString(const CompactString& o) { assign(o.view()); }
  CompactString(CompactString&& o) noexcept {
    std::memcpy(bytes_, o.bytes_, sizeof bytes_);
    o.set_small(0);
  }
  CompactString& operator=(const CompactString& o) {
    if (this != &o) {
      CompactString copy(o);
      swap(copy);
    }
    return *this;
  }
  CompactString& operator=(CompactString&& o) noexcept {
    if (this != &o) {
      release();
      std::memcpy(bytes_, o.bytes_, sizeof bytes_);
      o.set_small(0);
    }
    return *this;
  }
  CompactString& operator=(std::string_view s) {
    CompactString copy(s);
    swap(copy);
    return *this;
  }
  CompactString& operator=(const std::string& s) { return *this = std::string_view(s); }
  CompactString& operator=(const char* s) { return *this = std::string_view(s); }
  CompactString& operator=(std::nullptr_t) = delete;  // `s = {}` would read a null pointer: say `s = ""`
  ~CompactString() { release(); }

  void swap(CompactString& o) noexcept {
    char t[sizeof bytes_];
    std::memcpy(t, bytes_, sizeof t);
    std::memcpy(bytes_, o.bytes_, sizeof t);
    std::memcpy(o.bytes_, t, sizeof t);
  }

  [[nodiscard]] std::size_t size() const noexcept { return is_large() ? large_size() : kInPlace - tag(); }
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }
  [[nodiscard]] const char* data() const noexcept { return is_large() ? large_data() : bytes_; }
  [[nodiscard]] std::string_view view() const noexcept { return {data(), size()}; }
  [[nodiscard]] std::string str() const { return std::string(view()); }
  // It stands in for a std::string wherever one is read, as a view. It has
  // no conversion to std::string: a copy is made only where one is written
  // (str(), or std::string(s) through the view), never silently for a
  // `const std::string&` parameter.
  operator std::string_view() const noexcept { return view(); }  // NOLINT(google-explicit-constructor)

  friend bool operator==(const CompactString& a, const CompactString& b) noexcept { return a.view() == b.view(); }
  friend bool operator==(const CompactString& a, std::string_view b) noexcept { return a.view() == b; }
  friend bool operator==(const CompactString& a, const char* b) noexcept { return a.view() == b; }
  friend bool operator==(const CompactString& a, const std::string& b) noexcept { return a.view() == b; }
  friend auto operator<=>(const CompactString& a, const CompactString& b) noexcept { return a.view() <=> b.view(); }
  friend auto operator<=>(const CompactString& a, std::string_view b) noexcept { return a.view() <=> b; }
  friend auto operator<=>(const CompactString& a, const std::string& b) noexcept { return a.view() <=> std::string_view(b); }
  friend auto operator<=>(const CompactString& a, const char* b) noexcept { return a.view() <=> std::string_view(b); }
  friend std::string operator+(const CompactString& a, std::string_view b) { return std::string(a.view()).append(b); }
  friend std::string operator+(std::string_view a, const CompactString& b) { return std::string(a).append(b.view()); }
  friend std::string operator+(const CompactString& a, const CompactString& b) { return a + b.view(); }
  friend std::string operator+(const CompactString& a, const char* b) { return a + std::string_view(b); }
  friend std::string operator+(const char* a, const CompactString& b) { return std::string_view(a) + b; }
  friend std::string operator+(const std::string& a, const CompactString& b) { return std::string_view(a) + b; }
  friend std::string operator+(const CompactString& a, const std::string& b) { return a + std::string_view(b); }
  friend std::ostream& operator<<(std::ostream& out, const CompactString& s) { return out << s.view(); }

 private:
  static constexpr unsigned char kLarge = 0x80;
  static constexpr std::uint64_t kSizeMask = (std::uint64_t{1} << 56) - 1;

  [[nodiscard]] unsigned char tag() const noexcept { return static_cast<unsigned char>(bytes_[kInPlace]); }
  [[nodiscard]] bool is_large() const noexcept { return (tag() & kLarge) != 0; }
  [[nodiscard]] const char* large_data() const noexcept {
    const char* p = nullptr;
    std::memcpy(&p, bytes_, sizeof p);
    return p;
  }
  [[nodiscard]] std::size_t large_size() const noexcept {
    std::uint64_t s = 0;
    std::memcpy(&s, bytes_ + 8, sizeof s);
    return static_cast<std::size_t>(s & kSizeMask);
  }
  void set_small(std::size_t n) noexcept {
    bytes_[n] = '\0';
    bytes_[kInPlace] = static_cast<char>(kInPlace - n);
  }
  void assign(std::string_view s) {
    if (s.size() <= kInPlace) {
      if (!s.empty()) std::memcpy(bytes_, s.data(), s.size());
      set_small(s.size());
      return;
    }
    if (s.size() > kSizeMask) throw std::length_error("CompactString: longer than 2^56 - 1 characters");
    char* p = new char[s.size() + 1];
    std::memcpy(p, s.data(), s.size());
    p[s.size()] = '\0';
    const std::uint64_t size = s.size() | (std::uint64_t{kLarge} << 56);
    std::memcpy(bytes_, &p, sizeof p);
    std::memcpy(bytes_ + 8, &size, sizeof size);
  }
  void release() noexcept {
    if (is_large()) delete[] large_data();
  }

  alignas(4) char bytes_[16]{};  // 4, not 8: beside a 32-bit field, as a port is, it takes no padding
};

static_assert(sizeof(CompactString) == 16);

}  // namespace tfsem

template <>
struct std::hash<tfsem::CompactString> {
  std::size_t operator()(const tfsem::CompactString& s) const noexcept { return std::hash<std::string_view>{}(s.view()); }
};
