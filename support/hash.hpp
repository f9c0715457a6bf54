// Hash mixing shared by the value types (tensors, states, programs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tfsem {

inline std::uint64_t mix64(std::uint64_t x) {  // splitmix64 finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

inline std::size_t hash_combine(std::size_t seed, std::size_t v) {
  return static_cast<std::size_t>(mix64(seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2))));
}

// A map from strings that a string_view (or any text) looks up without
// making a std::string: the hash and the equality are transparent.
struct TextHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
template <class V>
using TextMap = std::unordered_map<std::string, V, TextHash, std::equal_to<>>;

// FNV-1a over bytes: stable across platforms and runs (used for published hashes).
inline std::uint64_t fnv1a_bytes(const void* data, std::size_t n, std::uint64_t h = 0xcbf29ce484222325ULL) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}
inline std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 0xcbf29ce484222325ULL) {
  return fnv1a_bytes(s.data(), s.size(), h);
}

// The 128-bit product of a and b, folded to 64 bits (its halves xored).
inline std::uint64_t multiply_fold(std::uint64_t a, std::uint64_t b) {
  __extension__ using Wide = unsigned __int128;
  const auto r = static_cast<Wide>(a) * b;
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}

// 8 bytes from p, in the machine's order (any alignment).
inline std::uint64_t load64(const void* p) {
  std::uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

// Fewer than 8 bytes from p (n of them; 0 when n is 0), as wyhash reads
// them: two 4-byte loads that may overlap, or the first, middle and last of
// 1 to 3 bytes. For a given n, each tells its bytes apart.
inline std::uint64_t load_under_8(const unsigned char* p, std::size_t n) {
  if (n >= 4) {
    std::uint32_t lo = 0, hi = 0;
    std::memcpy(&lo, p, sizeof lo);
    std::memcpy(&hi, p + n - 4, sizeof hi);
    return lo | std::uint64_t{hi} << 32;
  }
  if (n > 0) return std::uint64_t{p[0]} << 16 | std::uint64_t{p[n / 2]} << 8 | p[n - 1];
  return 0;
}

// A fast hash of n bytes, as wyhash computes one: the length mixed in
// first, then 16 bytes a step, each step one folded 128-bit multiplication
// of the first 8 bytes (keyed) by the other 8 xored with the state so far.
// Inputs longer than 64 bytes are taken 64 bytes a step by four such states,
// each its own 16, so that their multiplications overlap rather than wait
// for one another; the last 1 to 64 bytes 16 a step (a full row of
// lost-update-8's, 296 bytes: 7 dependent steps, not 19). Past 16 bytes,
// the last 1 to 16 are read as the 16 that end the input (some hashed
// already); up to 16, as two loads of 8 bytes that may overlap, or under 8
// as load_under_8 reads them. For in-memory tables only: not stable across
// versions, never published.
inline std::uint64_t hash_bytes(const void* data, std::size_t n) {
  static constexpr std::uint64_t k[4] = {0xa0761d6478bd642fULL, 0xe7037ed1a0b428dbULL, 0x8ebc6af09c88c6e3ULL,
                                         0x589965cc75374cc3ULL};
  const auto* p = static_cast<const unsigned char*>(data);
  const auto step = [&](const unsigned char* q, std::uint64_t state, std::size_t lane) {
    return multiply_fold(load64(q) ^ k[lane], load64(q + 8) ^ state ^ k[(lane + 1) % 4]);
  };
  std::uint64_t h = mix64(0x9e3779b97f4a7c15ULL ^ n), a = 0, b = 0;
  if (n > 16) {
    std::size_t left = n;
    if (left > 64) {
      // In registers, not an array. Lane j > 0 starts from h ^ k[j], so that no
      // two lanes' first steps key their states alike.
      std::uint64_t h1 = h ^ k[1], h2 = h ^ k[2], h3 = h ^ k[3];
      for (; left > 64; p += 64, left -= 64) {
        h = step(p, h, 0);
        h1 = step(p + 16, h1, 1);
        h2 = step(p + 32, h2, 2);
        h3 = step(p + 48, h3, 3);
      }
      h ^= h1 ^ h2 ^ h3;
    }
    for (; left > 16; p += 16, left -= 16) h = step(p, h, 0);
    a = load64(p + left - 16);
    b = load64(p + left - 8);
  } else if (n >= 8) {
    a = load64(p);
    b = load64(p + n - 8);
  } else {
    a = load_under_8(p, n);
  }
  return mix64(multiply_fold(a ^ k[2], b ^ h ^ k[3]) ^ h);
}

// The same over n 32-bit words.
inline std::uint64_t hash_words(const std::uint32_t* words, std::size_t n) {
  return hash_bytes(words, n * sizeof *words);
}

// A fast hash of a short byte string (a name), 8 bytes a step (for in-memory
// tables only: not stable across versions, never published).
inline std::uint64_t hash_name(std::string_view s) {
  // The length, mixed into every bit: the tail's loads and a name's first
  // bytes could otherwise cancel a length in h's low bits ("c_1145", "b_11145").
  std::uint64_t h = mix64(0x9e3779b97f4a7c15ULL ^ s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    h = (h ^ load64(p)) * 0xff51afd7ed558ccdULL;
    h ^= h >> 29;
  }
  // The last 0 to 7 bytes: the string's last 8 (some hashed already), or,
  // in a shorter string, as load_under_8 reads them.
  const auto tail = n > 0 && s.size() >= 8 ? load64(p + n - 8) : load_under_8(p, n);
  return mix64(h ^ tail);
}

}  // namespace tfsem
