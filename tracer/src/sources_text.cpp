#include "sources_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "sources_json.hpp"

namespace ripple::trace {
namespace {

std::string value_text(const nlohmann::ordered_json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// An object's entries grouped by equal value (sources_json.hpp).
std::vector<std::pair<std::string, std::string>> grouped(const nlohmann::ordered_json& object) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& [name, value] : object.items()) entries.emplace_back(name, value_text(value));
  return detail::grouped_by_value(entries);
}

}  // namespace

std::string sources_text(const std::string& json) {
  const nlohmann::ordered_json sources = nlohmann::ordered_json::parse(json, nullptr, false);
  if (!sources.is_object()) return "sources: " + json;
  std::size_t width = 0;
  for (const auto& [name, value] : sources.items()) width = std::max(width, name.size());
  std::string out = "sources:";
  for (const auto& [name, value] : sources.items()) {
    if (!value.is_object()) {
      out += fmt::format("\n  {:<{}}  {}", name, width, value_text(value));
      continue;
    }
    bool first = true;
    for (const auto& [names, text] : grouped(value)) {
      out += fmt::format("\n  {:<{}}  {}: {}", first ? name : "", width, names, text);
      first = false;
    }
  }
  return out + "\n";
}

}  // namespace ripple::trace
