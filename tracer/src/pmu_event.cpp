#include "ripple/trace/pmu_event.hpp"

#include <exception>
#include <fstream>
#include <sstream>
#include <vector>

namespace ripple::trace {
namespace {

bool read_line(const std::string& path, std::string& out) {
  std::ifstream in(path);
  if (!in || !std::getline(in, out)) return false;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return true;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  for (std::string p; std::getline(ss, p, sep);)
    if (!p.empty()) parts.push_back(p);
  return parts;
}

// Spreads `value` over the bit ranges of a format ("config1:0-15" or "config:0-7,32-35"), lowest
// value bits into the first range.
bool place(const std::string& format, std::uint64_t value, PmuEvent& e) {
  const auto colon = format.find(':');
  if (colon == std::string::npos) return false;
  const std::string field = format.substr(0, colon);
  const int index = field == "config" ? 0 : field == "config1" ? 1 : field == "config2" ? 2 : -1;
  if (index < 0) return false;
  int used = 0;
  for (const std::string& range : split(format.substr(colon + 1), ',')) {
    const auto dash = range.find('-');
    const int lo = std::stoi(range.substr(0, dash));
    const int hi = dash == std::string::npos ? lo : std::stoi(range.substr(dash + 1));
    if (lo < 0 || hi < lo || hi > 63) return false;
    for (int b = lo; b <= hi; ++b, ++used)
      if (used < 64 && ((value >> used) & 1u)) e.config[index] |= std::uint64_t{1} << b;
  }
  return true;
}

}  // namespace

std::optional<PmuEvent> read_pmu_terms(const std::string& pmu_dir, const std::map<std::string, std::uint64_t>& terms,
                                       std::string& why) try {
  PmuEvent e;
  std::string text;
  if (!read_line(pmu_dir + "/type", text)) {
    why = "no PMU at " + pmu_dir;
    return std::nullopt;
  }
  e.type = static_cast<std::uint32_t>(std::stoul(text));
  for (const auto& [name, value] : terms) {
    std::string format;
    if (!read_line(pmu_dir + "/format/" + name, format) || !place(format, value, e)) {
      why = pmu_dir + ": no usable format for the term '" + name + "'";
      return std::nullopt;
    }
  }
  return e;
} catch (const std::exception&) {  // a number that does not parse
  why = pmu_dir + ": unreadable type or format";
  return std::nullopt;
}

std::optional<PmuEvent> read_pmu_event(const std::string& pmu_dir, const std::string& event,
                                       const std::map<std::string, std::uint64_t>& overrides, std::string& why) try {
  std::string text;
  if (!read_line(pmu_dir + "/type", text)) {
    why = "no PMU at " + pmu_dir;
    return std::nullopt;
  }
  if (!read_line(pmu_dir + "/events/" + event, text)) {
    why = pmu_dir + " has no event '" + event + "'";
    return std::nullopt;
  }
  std::map<std::string, std::uint64_t> terms;
  for (const std::string& term : split(text, ',')) {
    const auto eq = term.find('=');
    terms[term.substr(0, eq)] = eq == std::string::npos ? 1 : std::stoull(term.substr(eq + 1), nullptr, 0);
  }
  for (const auto& [k, v] : overrides) terms[k] = v;
  std::optional<PmuEvent> e = read_pmu_terms(pmu_dir, terms, why);
  if (!e) why += " of '" + event + "'";
  return e;
} catch (const std::exception&) {  // a number that does not parse
  why = pmu_dir + ": unreadable description of '" + event + "'";
  return std::nullopt;
}

}  // namespace ripple::trace
