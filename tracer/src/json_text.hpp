#pragma once
// Texts for the `sources` JSON: they come from PAPI, perf and hwloc, and a message catalogue may
// give Latin-1 where JSON (RFC 8259) wants UTF-8. nlohmann::json escapes what JSON requires;
// this keeps every text valid UTF-8 first, without losing what the bytes said.
#include <cstddef>
#include <string>

namespace ripple::trace::detail {

// The length of the well-formed UTF-8 sequence at v[at] (RFC 3629: no overlong forms, no
// surrogates, nothing beyond U+10FFFF), or 0.
inline std::size_t utf8_sequence(const std::string& v, std::size_t at) {
  const auto byte = [&](std::size_t k) { return at + k < v.size() ? static_cast<unsigned char>(v[at + k]) : 0u; };
  const unsigned lead = byte(0);
  const auto tail = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xbf) { return byte(k) >= lo && byte(k) <= hi; };
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return tail(1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) return tail(1, lead == 0xe0 ? 0xa0 : 0x80, lead == 0xed ? 0x9f : 0xbf) && tail(2) ? 3 : 0;
  if (lead >= 0xf0 && lead <= 0xf4)
    return tail(1, lead == 0xf0 ? 0x90 : 0x80, lead == 0xf4 ? 0x8f : 0xbf) && tail(2) && tail(3) ? 4 : 0;
  return 0;
}

// `v` as valid UTF-8: well-formed sequences kept, and any other byte (Latin-1 text, a damaged
// name) taken as the code point of the same number (é stays é, where a replacement character
// would lose it).
inline std::string valid_utf8(const std::string& v) {
  std::string out;
  out.reserve(v.size());
  for (std::size_t at = 0; at < v.size();) {
    if (const std::size_t n = utf8_sequence(v, at); n > 0) {
      out.append(v, at, n);
      at += n;
    } else {
      const auto c = static_cast<unsigned char>(v[at++]);  // 0x80..0xff: two bytes in UTF-8
      out += static_cast<char>(0xc0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3f));
    }
  }
  return out;
}

}  // namespace ripple::trace::detail
