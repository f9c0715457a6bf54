// States, transitions and schedules as bytes that mean the same in every
// process: the distributed search's messages (distributed.hpp). A process
// interns its tensors (codec.hpp) and execution contexts (context.hpp) in the
// order it meets them, so codes and ContextIds differ between processes; on
// the wire a tensor is its value (a term's DAG: a compound subterm met again
// refers back to where it was written), a context its stack of (frame, iteration)
// entries from the outermost, and a state's InTransit slots and fired records
// come in the canonical order of Contexts::before, then the path condition's
// literals in the structural order of their terms. Equal states have equal
// bytes, so a state's owner can be chosen by hashing them.
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

// The tensors a Reader has read, by their bytes: a tensor met again is the
// same Tensor (one allocation, and the codec finds it by identity).
using TensorCache = TextMap<Tensor>;

class Writer {
 public:
  Writer(const Semantics& sem, Bytes& out) : sem_(sem), out_(out) {}
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v) { raw(&v, sizeof v); }
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  // v in seven-bit groups, low first, the top bit saying another follows:
  // one byte below 128.
  void varint(std::uint64_t v) {
    for (; v >= 0x80; v >>= 7) out_.push_back(static_cast<char>(v | 0x80));
    out_.push_back(static_cast<char>(v));
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
    const auto* p = reinterpret_cast<const std::uint8_t*>(in_.data() + at_);
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < kLongestVarint; ++i) {
      v |= std::uint64_t{p[i] & 0x7FU} << (7 * i);
      if ((p[i] & 0x80U) == 0) {
        at_ += i + 1;
        return v;
      }
    }
    throw std::runtime_error("wire: a number of more than 64 bits");
  }
  static constexpr std::size_t kLongestVarint = 10;
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
  Tensor tensor_value(std::vector<Tensor>& read);
  std::uint64_t varint_near_end();  // varint() within its longest of the end  // after its length; `read`: the compound terms read before in it
};

}  // namespace tfsem::explorer::wire
