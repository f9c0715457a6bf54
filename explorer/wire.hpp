// States, transitions and schedules as bytes that mean the same in every
// process: what the distributed search's checkpoints and its gathering on
// rank 0 write (distributed.hpp), and the values its channels send once
// (channel.hpp). A process
// interns its tensors (codec.hpp) and execution contexts (context.hpp) in the
// order it meets them, so codes and ContextIds differ between processes; on
// the wire a tensor is its value (a term's DAG: a compound subterm met again
// refers back to where it was written), a context its stack of (frame, iteration)
// entries from the outermost, and a state's InTransit slots and fired records
// come in the canonical order of Contexts::before, then the path condition's
// literals in the structural order of their terms. Equal states have equal
// bytes.
#pragma once

#include "support/hash.hpp"
#include "semantics/semantics.hpp"
#include "semantics/session.hpp"

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tfsem::explorer::wire {

using Bytes = std::vector<char>;

// The longest varint: 64 bits in seven-bit groups.
inline constexpr std::size_t kLongestVarint = 10;
// Writes v at p in seven-bit groups, low first, the top bit of a byte saying
// another follows (one byte below 128); returns where it ends.
inline char* put_varint(char* p, std::uint64_t v) {
  for (; v >= 0x80; v >>= 7) *p++ = static_cast<char>(v | 0x80);
  *p++ = static_cast<char>(v);
  return p;
}
// The varint at p (kLongestVarint bytes readable there), its length into n;
// n is 0 for one longer than 64 bits.
inline std::uint64_t get_varint(const char* p, std::size_t& n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < kLongestVarint; ++i) {
    const auto b = static_cast<std::uint8_t>(p[i]);
    v |= std::uint64_t{b & 0x7FU} << (7 * i);
    if ((b & 0x80U) == 0) {
      n = i + 1;
      return v;
    }
  }
  n = 0;
  return 0;
}

// The tensors a Reader has read, by their bytes: a tensor met again is the
// same Tensor (one allocation, and the codec finds it by identity).
using TensorCache = TextMap<Tensor>;

class Writer {
 public:
  Writer(const Semantics& sem, Bytes& out) : sem_(sem), out_(out) {}
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v) { raw(&v, sizeof v); }
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void varint(std::uint64_t v) {
    char b[kLongestVarint];
    out_.insert(out_.end(), b, put_varint(b, v));
  }
  void raw(const void* p, std::size_t n);
  void text(const std::string& s);
  void tensor(const Tensor& t);
  void content(const Content& c);
  void context(ContextId c);
  void transition(Transition t);
  void steps(std::span<const Step> steps);
  void state(const State& s);
  void path(const PathCondition& p);  // its literals, in the structural order of their terms

 private:
  const Semantics& sem_;
  Bytes& out_;
  // t after its length; `written`: the compound terms written before in this tensor, by identity, and their indices.
  void value(const Tensor& t, std::unordered_map<const void*, std::uint32_t>& written);
};

// Reads what a Writer wrote; contexts are interned in this process's
// Semantics. Malformed bytes (a bug, never user input) throw std::runtime_error.
class Reader {
 public:
  Reader(const Semantics& sem, std::span<const char> in, TensorCache* tensors = nullptr)
      : sem_(sem), in_(in), tensors_(tensors) {}
  [[nodiscard]] bool done() const { return at_ == in_.size(); }
  [[nodiscard]] std::size_t position() const { return at_; }
  [[nodiscard]] std::size_t remaining() const { return in_.size() - at_; }
  std::uint8_t u8();
  std::uint32_t u32();
  std::uint64_t u64();
  // What Writer::varint wrote.
  std::uint64_t varint() {
    if (in_.size() - at_ < kLongestVarint) return varint_near_end();
    std::size_t n = 0;
    const auto v = get_varint(in_.data() + at_, n);
    if (n == 0) throw std::runtime_error("wire: a number of more than 64 bits");
    at_ += n;
    return v;
  }
  void raw(void* p, std::size_t n);
  // The next n bytes, in place.
  std::span<const char> take(std::size_t n);
  std::string text();
  Tensor tensor();
  Content content();
  ContextId context();
  Transition transition();
  Schedule steps();
  State state();
  PathCondition path();

 private:
  const Semantics& sem_;
  std::span<const char> in_;
  TensorCache* tensors_;
  std::size_t at_ = 0;
  Tensor tensor_value(std::vector<Tensor>& read);  // after its length; `read`: the compound terms read before in it
  std::uint64_t varint_near_end();                   // varint() within its longest of the end
};

}  // namespace tfsem::explorer::wire
