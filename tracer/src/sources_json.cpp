#include "sources_json.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "json_text.hpp"

namespace ripple::trace::detail {

std::vector<std::pair<std::string, std::string>> grouped_by_value(
    const std::vector<std::pair<std::string, std::string>>& entries) {
  std::vector<std::pair<std::string, std::string>> groups;  // (names, value)
  for (const auto& entry : entries) {                       // no structured binding: clang 14 (clang-tidy) cannot capture one
    const auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.second == entry.second; });
    if (it == groups.end())
      groups.push_back(entry);
    else
      it->first += ", " + entry.first;
  }
  return groups;
}

std::string sources_json(const std::string& mpi, const std::string& counter_status, const std::string& perf,
                         const std::string& hwloc, const std::string& eager_limits) {
  nlohmann::ordered_json counters = nlohmann::ordered_json::object();
  std::istringstream lines(counter_status);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    const auto colon = line.find(": ");  // event names hold "::" (perf::TASK-CLOCK), never ": "
    counters[valid_utf8(line.substr(0, colon))] = valid_utf8(colon == std::string::npos ? "" : line.substr(colon + 2));
  }
  nlohmann::ordered_json j = {
      {"mpi", valid_utf8(mpi)}, {"counters", counters}, {"perf", valid_utf8(perf)}, {"hwloc", valid_utf8(hwloc)}};
  if (!eager_limits.empty()) j["eager_limits"] = nlohmann::ordered_json::parse(eager_limits);
  return j.dump();
}

}  // namespace ripple::trace::detail
