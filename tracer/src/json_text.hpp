#pragma once
// Text inside a JSON string: the `sources` attribute is JSON that scripts parse, and its texts come
// from PAPI, perf and hwloc (error messages may hold quotes, backslashes or newlines).
#include <cstdio>
#include <string>

namespace ripple::trace::detail {

inline std::string json_escape(const std::string& v) {
  std::string out;
  for (const char c : v) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char code[8];
      std::snprintf(code, sizeof code, "\\u%04x", static_cast<unsigned>(c));
      out += code;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace ripple::trace::detail
