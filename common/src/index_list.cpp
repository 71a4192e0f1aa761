#include "ripple/common/index_list.hpp"

#include <sstream>

namespace ripple {

std::string index_list(const std::vector<int>& values) {
  std::string text;
  for (std::size_t i = 0; i < values.size();) {
    std::size_t j = i;
    while (j + 1 < values.size() && values[j + 1] == values[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += std::to_string(values[i]);
    if (j > i) {
      text += '-';
      text += std::to_string(values[j]);
    }
    i = j + 1;
  }
  return text;
}

std::optional<std::vector<int>> parse_index_list(const std::string& text) {
  std::vector<int> values;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    std::stringstream range(part);
    int lo = 0, hi = 0;
    char dash = 0;
    if (!(range >> lo)) return std::nullopt;
    hi = lo;
    if (range >> dash && (dash != '-' || !(range >> hi))) return std::nullopt;
    if (range >> dash || hi < lo || hi - lo >= 65536) return std::nullopt;
    for (int v = lo; v <= hi; ++v) values.push_back(v);
  }
  return values;
}

}  // namespace ripple
