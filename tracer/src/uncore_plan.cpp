#include "ripple/trace/uncore_plan.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ripple::trace {
namespace {

namespace fs = std::filesystem;

// A cpumask file ("0,28" or "0-1"): its CPUs.
std::vector<int> read_cpus(const fs::path& path) {
  std::vector<int> cpus;
  std::ifstream in(path);
  std::string text;
  if (!std::getline(in, text)) return cpus;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, ',');) {
    if (part.empty()) continue;
    const auto dash = part.find('-');
    try {
      const int lo = std::stoi(part.substr(0, dash));
      const int hi = dash == std::string::npos ? lo : std::stoi(part.substr(dash + 1));
      for (int c = lo; c <= hi && c - lo < 65536; ++c) cpus.push_back(c);
    } catch (const std::exception&) {
      return {};
    }
  }
  return cpus;
}

}  // namespace

std::vector<UncorePlan> plan_uncore(const std::string& sysfs, const std::vector<std::string>& events,
                                    const std::vector<int>& package_cpus, const std::string& pmu_prefix) {
  std::vector<std::string> pmus;
  std::error_code ec;
  for (fs::directory_iterator it(sysfs, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(pmu_prefix, 0) == 0) pmus.push_back(name);
  }
  std::sort(pmus.begin(), pmus.end());
  std::vector<UncorePlan> plans;
  for (const std::string& requested : events) {
    UncorePlan plan;
    plan.event = requested;
    const auto slash = requested.find('/');
    const std::string event = slash == std::string::npos ? requested : requested.substr(slash + 1);
    std::vector<std::string> candidates = pmus;
    if (slash != std::string::npos) candidates = {requested.substr(0, slash)};
    std::string last_why;
    for (const std::string& pmu : candidates) {
      const fs::path dir = fs::path(sysfs) / pmu;
      std::error_code missing;
      if (!fs::exists(dir / "events" / event, missing)) continue;
      std::string why;
      const auto e = read_pmu_event(dir.string(), event, {}, why);
      if (!e) {
        last_why = why;
        continue;
      }
      // Uncore PMUs count for a whole package on any one CPU of it; the cpumask lists one per package.
      const std::vector<int> mask = read_cpus(dir / "cpumask");
      const auto in_package = std::find_if(mask.begin(), mask.end(), [&](int c) {
        return std::find(package_cpus.begin(), package_cpus.end(), c) != package_cpus.end();
      });
      if (in_package == mask.end()) {
        last_why = pmu + ": no CPU of its cpumask lies in this package";
        continue;
      }
      plan.counters.push_back({pmu, *e, *in_package});
    }
    if (plan.counters.empty())
      plan.why = !last_why.empty() ? last_why
                                   : "no uncore PMU with the event '" + event + "' (no " + sysfs + "/" +
                                         (slash != std::string::npos ? requested.substr(0, slash) : pmu_prefix + "*") +
                                         "/events/" + event + ")";
    plans.push_back(std::move(plan));
  }
  return plans;
}

}  // namespace ripple::trace
