#pragma once
// Text inside a JSON string: the `sources` attribute is JSON that scripts parse, and its texts come
// from PAPI, perf and hwloc (error messages may hold quotes, backslashes or newlines).
#include <cstddef>
#include <cstdio>
#include <string>

namespace ripple::trace::detail {

// The length of the well-formed UTF-8 sequence at v[at] (RFC 3629: no overlong forms, no
// surrogates, nothing beyond U+10FFFF), or 0.
inline std::size_t utf8_sequence(const std::string& v, std::size_t at) {
  const auto byte = [&](std::size_t k) { return at + k < v.size() ? static_cast<unsigned char>(v[at + k]) : 0u; };
  const unsigned lead = byte(0);
  const auto tail = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xbf) { return byte(k) >= lo && byte(k) <= hi; };
  if (lead >= 0xc2 && lead <= 0xdf) return tail(1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) return tail(1, lead == 0xe0 ? 0xa0 : 0x80, lead == 0xed ? 0x9f : 0xbf) && tail(2) ? 3 : 0;
  if (lead >= 0xf0 && lead <= 0xf4)
    return tail(1, lead == 0xf0 ? 0x90 : 0x80, lead == 0xf4 ? 0x8f : 0xbf) && tail(2) && tail(3) ? 4 : 0;
  return 0;
}

// `v` inside a JSON string: quotes, backslashes and control characters escaped, well-formed UTF-8
// kept, and any other byte (Latin-1 text from a message catalogue, a damaged name) escaped as the
// code point of the same number, so that the result is always valid JSON (RFC 8259 wants UTF-8).
inline std::string json_escape(const std::string& v) {
  std::string out;
  const auto escaped = [&](unsigned code) {
    char text[8];
    std::snprintf(text, sizeof text, "\\u%04x", code);
    out += text;
  };
  for (std::size_t at = 0; at < v.size();) {
    const auto c = static_cast<unsigned char>(v[at]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++at;
    } else if (c < 0x20) {
      escaped(c);
      ++at;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
      ++at;
    } else if (const std::size_t n = utf8_sequence(v, at); n > 0) {
      out.append(v, at, n);
      at += n;
    } else {
      escaped(c);
      ++at;
    }
  }
  return out;
}

}  // namespace ripple::trace::detail
