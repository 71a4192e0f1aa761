#include "ripple/common/index_list.hpp"

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

}  // namespace ripple
