// Whether bytes are valid UTF-8: protobuf's `bytes` fields (an attribute's
// `s`) may hold anything, and what tfsem names by them (variables, frames) is
// text, written to JSON.
#pragma once

#include <cstddef>
#include <string_view>

namespace tfsem::graphdef {

// RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF (as
// nlohmann/json checks when it writes a string).
inline bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return false;
    if (n > 2) {  // the second byte's range excludes the overlong, surrogate and too large forms
      const auto d = static_cast<unsigned char>(s[i + 1]);
      if ((c == 0xE0 && d < 0xA0) || (c == 0xED && d > 0x9F) || (c == 0xF0 && d < 0x90) || (c == 0xF4 && d > 0x8F))
        return false;
    }
    i += n;
  }
  return true;
}

}  // namespace tfsem::graphdef
