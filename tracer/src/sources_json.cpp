#include "sources_json.hpp"

#include <sstream>

#include "json_text.hpp"

namespace ripple::trace::detail {

std::string sources_json(const std::string& mpi, const std::string& counter_status, const std::string& perf,
                         const std::string& hwloc, const std::string& eager_limits) {
  const auto quoted = [](const std::string& text) {
    std::string q(1, '"');  // appended, not "\"" + ...: GCC 12 warns (-Wrestrict) falsely about that
    q += json_escape(text);
    q += '"';
    return q;
  };
  std::string counters;
  std::istringstream lines(counter_status);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    const auto colon = line.find(": ");  // event names hold "::" (perf::TASK-CLOCK), never ": "
    const std::string name = line.substr(0, colon), status = colon == std::string::npos ? "" : line.substr(colon + 2);
    counters += (counters.empty() ? "" : ", ") + quoted(name) + ": " + quoted(status);
  }
  return "{\"mpi\": " + quoted(mpi) + ", \"counters\": {" + counters + "}, \"perf\": " + quoted(perf) +
         ", \"hwloc\": " + quoted(hwloc) + (eager_limits.empty() ? "" : ", \"eager_limits\": " + eager_limits) + "}";
}

}  // namespace ripple::trace::detail
