#include "ripple/common/json_check.hpp"

#include <nlohmann/json.hpp>

namespace ripple {

bool is_json_object(std::string_view text) {
  // accept() validates without building the value; its parser keeps its nesting on a heap stack,
  // so deep nesting in a damaged file is no recursion. Only an object passes.
  if (!nlohmann::json::accept(text)) return false;
  const auto first = text.find_first_not_of(" \t\n\r");
  return first != std::string_view::npos && text[first] == '{';
}

}  // namespace ripple
