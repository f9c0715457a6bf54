#include "formats/json/array_count.hpp"

#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tfsem::format {

namespace {

constexpr std::size_t kBlock = 64;

// Bit i of each mask stands for byte i of a 64-byte block.
struct Masks {
  std::uint64_t quote = 0, backslash = 0, structural = 0;  // structural: { } [ ] ,
};

Masks classify(const char* block) {
  Masks m;
#if defined(__SSE2__)
  for (std::size_t k = 0; k < kBlock; k += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + k));
    const auto bits = [&](__m128i is) { return std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(is))} << k; };
    const auto equals = [](__m128i x, char c) { return _mm_cmpeq_epi8(x, _mm_set1_epi8(c)); };
    // Setting bit 5 turns '[' into '{' and ']' into '}', and nothing else into either.
    const __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
    m.quote |= bits(equals(v, '"'));
    m.backslash |= bits(equals(v, '\\'));
    m.structural |= bits(_mm_or_si128(_mm_or_si128(equals(folded, '{'), equals(folded, '}')), equals(v, ',')));
  }
#else
  for (std::size_t i = 0; i < kBlock; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << i;
    switch (block[i]) {
      case '"': m.quote |= bit; break;
      case '\\': m.backslash |= bit; break;
      case '{': case '}': case '[': case ']': case ',': m.structural |= bit; break;
      default: break;
    }
  }
#endif
  return m;
}

// The bytes a backslash escapes: each one right after a backslash that is not
// itself escaped. `carry` comes in set when the block's first byte is escaped
// (the one before ended in such a backslash) and goes out saying the same of
// the next block. Backslashes are rare in graph files, so they are walked.
std::uint64_t escaped_bytes(std::uint64_t backslash, bool& carry) {
  std::uint64_t escaped = carry ? 1 : 0;
  backslash &= ~escaped;
  carry = false;
  while (backslash != 0) {
    const auto at = static_cast<std::size_t>(std::countr_zero(backslash));
    backslash &= backslash - 1;
    if (at == kBlock - 1) {
      carry = true;
      break;
    }
    const std::uint64_t next = std::uint64_t{1} << (at + 1);
    escaped |= next;
    backslash &= ~next;
  }
  return escaped;
}

// Bit i: the parity of the bits at i and below. Over the unescaped quotes, it
// marks each string's bytes from its opening quote up to its closing one.
std::uint64_t prefix_xor(std::uint64_t x) {
  for (int shift = 1; shift < 64; shift <<= 1) x ^= x << shift;
  return x;
}

}  // namespace

std::optional<std::size_t> count_array_elements(std::string_view text, std::vector<std::size_t>* commas,
                                                std::size_t stride, std::size_t* end) {
  std::size_t separators = 0;  // the commas between elements
  std::size_t next_mark = commas ? stride : 0;  // the separator to note next (none: 0, as counts start at 1)
  std::int64_t depth = 0;
  bool carry = false;          // the next block's first byte is escaped
  std::uint64_t inside = 0;    // all ones while a string runs on into the next block
  char tail[kBlock];
  for (std::size_t at = 0; at < text.size(); at += kBlock) {
    const char* block = text.data() + at;
    if (text.size() - at < kBlock) {  // the last block, padded with spaces
      std::memset(tail, ' ', kBlock);
      std::memcpy(tail, block, text.size() - at);
      block = tail;
    }
    const Masks m = classify(block);
    const std::uint64_t in_string = prefix_xor(m.quote & ~escaped_bytes(m.backslash, carry)) ^ inside;
    inside = (in_string >> (kBlock - 1)) != 0 ? ~std::uint64_t{0} : 0;
    for (std::uint64_t s = m.structural & ~in_string; s != 0; s &= s - 1) {
      switch (block[std::countr_zero(s)]) {
        case '{': case '[': ++depth; break;
        case '}': case ']':
          if (--depth == 0) {
            if (end) *end = at + static_cast<std::size_t>(std::countr_zero(s));
            return separators + 1;
          }
          break;
        default:  // ','
          separators += depth == 1 ? 1 : 0;
          if (separators == next_mark && depth == 1) [[unlikely]] {
            commas->push_back(at + static_cast<std::size_t>(std::countr_zero(s)));
            next_mark += stride;
          }
          break;
      }
    }
  }
  return std::nullopt;
}

}  // namespace tfsem::format
