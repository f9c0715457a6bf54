// A checkpoint's bytes (checkpoint.hpp) on the disk. Written to a temporary
// file beside the final one, flushed, synced and renamed over it (and the
// directory synced), so that a crash while writing leaves the previous
// checkpoint whole. The file starts with a magic, the format's version, its
// own length and a checksum of everything after them; reading checks the
// length (a shorter file was truncated) and the checksum (a corrupted one)
// before anything is read as a search, and every read after that against
// the end.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace tfsem::explorer {

// A checkpoint that cannot be written, or resumed from, and why (the command exits 2).
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The layout of the file, of the packed rows it holds (codec.hpp), of the
// state table's index (where a row is looked for) and of the outcomes' keys
// (findings.cpp), and which states the reductions store (what settling
// fires): a checkpoint of another format is refused, since its rows would
// read wrong, or its states and outcomes would not meet theirs again.
inline constexpr std::uint32_t kCheckpointFormat = 9;

// What is written as its bytes: copied and destroyed trivially (a pair of integers too).
template <class T>
inline constexpr bool kPlain = std::is_trivially_copy_constructible_v<T> && std::is_trivially_destructible_v<T>;

class CheckpointOut {
 public:
  // Writes to `path`.tmp until commit(); throws std::runtime_error naming the
  // file when it cannot be written.
  explicit CheckpointOut(std::string path);
  CheckpointOut(const CheckpointOut&) = delete;
  CheckpointOut& operator=(const CheckpointOut&) = delete;
  ~CheckpointOut();  // an uncommitted file is removed

  void raw(const void* p, std::size_t n);
  template <class T>
  void pod(const T& v) {
    static_assert(kPlain<T>);
    raw(&v, sizeof v);
  }
  template <class T>
  void list(std::span<const T> v) {
    static_assert(kPlain<T>);
    pod<std::uint64_t>(v.size());
    raw(v.data(), v.size_bytes());
  }
  template <class T>
  void list(const std::vector<T>& v) {
    list(std::span<const T>(v));
  }
  // A deque as a list (the same bytes), element by element.
  template <class T>
  void list(const std::deque<T>& d) {
    static_assert(kPlain<T>);
    pod<std::uint64_t>(d.size());
    for (const auto& v : d) pod(v);
  }
  void text(std::string_view s) { list(std::span<const char>(s.data(), s.size())); }

  // The length and checksum, then flushed, synced and renamed over the path.
  void commit();

 private:
  std::string path_, temporary_;
  int fd_ = -1;
  std::vector<char> buffer_;
  std::uint64_t length_ = 0, sum_ = 0;
  void flush();
  [[noreturn]] void fail(const char* what) const;
};

class CheckpointIn {
 public:
  // Opens the checkpoint at `path` and checks its magic, format, length and
  // checksum; CheckpointError says what is wrong.
  explicit CheckpointIn(const std::string& path);
  CheckpointIn(const CheckpointIn&) = delete;
  CheckpointIn& operator=(const CheckpointIn&) = delete;
  ~CheckpointIn();

  void raw(void* p, std::size_t n);
  template <class T>
  T pod() {
    static_assert(kPlain<T>);
    T v;
    raw(&v, sizeof v);
    return v;
  }
  // A list of at most `max` elements (a longer one is a corrupted file).
  template <class T>
  std::vector<T> list(std::uint64_t max = UINT32_MAX) {
    const auto n = size(max, sizeof(T));
    std::vector<T> v(n);
    raw(v.data(), n * sizeof(T));
    return v;
  }
  // A list, appended to a deque element by element: never held twice.
  template <class T>
  void list_into(std::deque<T>& d, std::uint64_t max = UINT32_MAX) {
    for (auto n = size(max, sizeof(T)); n > 0; --n) d.push_back(pod<T>());
  }
  std::string text() {
    const auto n = size(UINT32_MAX, 1);
    std::string s(n, '\0');
    raw(s.data(), n);
    return s;
  }
  // A list's length, at most `max` and within what is left of the file.
  std::uint64_t size(std::uint64_t max, std::size_t element);
  [[nodiscard]] bool at_end() const { return at_ == length_ && taken_ == in_buffer_; }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  std::vector<char> buffer_;
  std::size_t in_buffer_ = 0, taken_ = 0;
  std::uint64_t at_ = 0, length_ = 0;
  void fill();
};

}  // namespace tfsem::explorer
