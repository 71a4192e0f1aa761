#include "ripple/analysis/cxl_machine.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "ripple/common/error.hpp"

namespace ripple::analysis {

const std::vector<MachineKey>& machine_keys() {
  static const std::vector<MachineKey> keys = {
      {"MPI_RECV_LAT", "ns", 320, true, "Hockney latency α of a receive (ping-pong fit)"},
      {"MPI_RECV_BW", "B/s", 9.444e9, true, "Hockney bandwidth β of a receive (ping-pong fit)"},
      {"LOCAL_MEM_LAT", "ns", 86, true, "local memory latency (pointer chase), the model's MEM_LAT"},
      {"FAR_MEM_LAT", "ns", 154, true, "memory latency on the --numa node (pointer chase, the memory bound to the node)"},
      {"SHM_ATOMIC_LAT", "ns", 191, true, "one atomic hand-over between two processes on shared memory (half a flag ping-pong)"},
      {"CXL_REMOTE_LAT", "ns", 350, true, "the model's CXL_LAT: a load from the CXL pool"},
      {"CXL_REMOTE_ATOMIC_LAT", "ns", 430, true, "the model's CXL_ATOMIC_LAT: an atomic round trip on the pool"},
      {"L1_BW", "B/s", 200e9, true, "L1 read bandwidth of one core (streaming)"},
      {"L2_BW", "B/s", 52e9, true, "L2 read bandwidth of one core (streaming); CBW is relative to it"},
      {"MEM_BW", "B/s", 73e9, true, "memory read bandwidth (streaming)"},
      {"PEAK_MEM_BW", "B/s", 73e9, true, "the peak memory bandwidth MBW is relative to"},
      {"CLOCK_GHZ", "GHz", 2.4, true, "the clock of sample latencies: ns = cycles / CLOCK_GHZ"},
      {"MBW_THR_L", "1", 0.03, true, "MBW weight 0 at or below (fraction of PEAK_MEM_BW)"},
      {"MBW_THR_U", "1", 0.33, true, "MBW weight 1 at or above"},
      {"MLAT_THR_L", "1", 0.01, true, "MLAT weight 0 at or below (L3 load misses per load)"},
      {"MLAT_THR_U", "1", 0.2, true, "MLAT weight 1 at or above"},
      {"CBW_THR_L", "1", 0.1, true, "CBW weight 0 at or below (fraction of L2_BW)"},
      {"CBW_THR_U", "1", 0.75, true, "CBW weight 1 at or above"},
      {"CLAT_THR_L", "1", 0.05, true, "CLAT weight 0 at or below (L1 load misses per load)"},
      {"CLAT_THR_U", "1", 0.5, true, "CLAT weight 1 at or above"},
      {"LPF_LAT", "1", 1.5, true, "load parallelism of latency-limited code (MLAT, CLAT)"},
      {"LPF_BW", "1", 3, true, "load parallelism of bandwidth-limited code (MBW, CBW, Compute)"},
      {"COMPUTE_MAX_WEIGHT", "1", 0.5, true, "Compute weight where one memory category or none is active"},
      {"MIXED_MAX_WEIGHT", "1", 0.5, true, "Compute weight where several memory categories are active"},
      {"MBW_DEMAND_HIT_FRACTION", "1", 0.875, true, "cache hits taken as demand hits in MBW (the rest prefetch)"},
      {"CBW_DEMAND_HIT_FRACTION", "1", 0.875, true, "cache hits taken as demand hits in CBW (the rest prefetch)"},
      {"WEIGHT_MBW", "1", 0, false, "category weight used where the trace has no counters"},
      {"WEIGHT_MLAT", "1", 0, false, "likewise"},
      {"WEIGHT_CBW", "1", 0, false, "likewise"},
      {"WEIGHT_CLAT", "1", 0, false, "likewise"},
      {"WEIGHT_COMPUTE", "1", 0, false, "likewise"},
  };
  return keys;
}

std::optional<std::string> canonical_key(const std::string& name) {
  static const std::map<std::string, std::string> aliases = {
      {"MPI_LAT", "MPI_RECV_LAT"},
      {"MPI_BW", "MPI_RECV_BW"},
      {"MEM_LAT", "LOCAL_MEM_LAT"},
      {"DDR_LAT", "LOCAL_MEM_LAT"},
      {"CXL_LAT", "CXL_REMOTE_LAT"},
      {"CXL_ATOMIC_LAT", "CXL_REMOTE_ATOMIC_LAT"},
      {"CXL_REMOTE_ATOMIC", "CXL_REMOTE_ATOMIC_LAT"},
      {"PEAK_BW", "PEAK_MEM_BW"},
  };
  for (const MachineKey& k : machine_keys())
    if (name == k.name) return name;
  if (auto it = aliases.find(name); it != aliases.end()) return it->second;
  return std::nullopt;
}

Machine Machine::defaults() {
  Machine m;
  for (const MachineKey& k : machine_keys())
    if (k.required) m.params_[k.name] = MachineParam{k.fallback, "given", "seed 003's value", 0};
  return m;
}

const MachineParam& Machine::param(const std::string& key) const {
  auto it = params_.find(key);
  if (it == params_.end()) throw InputError(fmt::format("the machine description has no {}", key));
  return it->second;
}

double Machine::operator[](const std::string& key) const { return param(key).value; }

void Machine::set(const std::string& key, MachineParam p) {
  const auto name = canonical_key(key);
  if (!name) throw InputError(fmt::format("unknown machine key '{}' (docs/cxl.md lists them)", key));
  params_[*name] = std::move(p);
}

void Machine::set_from_text(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos) throw InputError(fmt::format("--set '{}': expected KEY=VALUE", assignment));
  const std::string key = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  if (!canonical_key(key)) throw InputError(fmt::format("--set: unknown machine key '{}' (docs/cxl.md lists them)", key));
  double v = 0;
  std::size_t used = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(v) || v < 0)
    throw InputError(fmt::format("--set {}: '{}' is not a non-negative number", key, text));
  set(key, MachineParam{v, "given", "--set", 0});
}

Machine parse_machine(const std::string& toml_text, const std::string& source) {
  toml::table root;
  try {
    root = toml::parse(toml_text, source);
  } catch (const toml::parse_error& e) {
    throw InputError(fmt::format("{}: not a machine file: {} (line {})", source, e.description(), e.source().begin.line));
  }
  Machine m;
  for (const auto& [k, node] : root) {
    const std::string key(k.str());
    if (key == "schema" || key == "schema_version") continue;
    if (!canonical_key(key)) throw InputError(fmt::format("{}: unknown machine key '{}'", source, key));
    const toml::table* t = node.as_table();
    const auto value = t != nullptr ? (*t)["value"].value<double>() : node.value<double>();
    if (!value || !std::isfinite(*value)) throw InputError(fmt::format("{}: {} needs a finite number as its value", source, key));
    MachineParam p{*value, "given", "", 0};
    if (t != nullptr) {
      p.source = (*t)["source"].value_or(std::string("given"));
      p.how = (*t)["how"].value_or(std::string());
      p.spread = (*t)["spread"].value_or(0.0);
      if (p.source != "measured" && p.source != "given")
        throw InputError(fmt::format("{}: {}.source must be \"measured\" or \"given\"", source, key));
    }
    m.set(key, p);
  }
  for (const MachineKey& k : machine_keys())
    if (k.required && !m.has(k.name))
      throw InputError(
          fmt::format("{}: the machine file has no {} ({}; `ripple calibrate` writes every key)", source, k.name, k.meaning));
  return m;
}

Machine load_machine(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot read the machine file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_machine(ss.str(), path);
}

namespace {
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// A TOML float (always with a point or an exponent, so that it reads back as a float).
std::string toml_number(double v, int digits) {
  std::string s = fmt::format("{:.{}g}", v, digits);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}
}  // namespace

std::string machine_toml(const Machine& m, const std::string& header_comment) {
  std::string out;
  std::istringstream lines(header_comment);
  for (std::string line; std::getline(lines, line);) out += "# " + line + "\n";
  out += "schema = \"ripple-machine\"\nschema_version = 1\n";
  for (const MachineKey& k : machine_keys()) {
    if (!m.has(k.name)) continue;
    const MachineParam& p = m.param(k.name);
    out += fmt::format("\n[{}]  # {}, {}\nvalue = {}\nsource = {}\nhow = {}\nspread = {}\n", k.name, k.unit, k.meaning,
                       toml_number(p.value, 10), quoted(p.source), quoted(p.how), toml_number(p.spread, 4));
  }
  return out;
}

}  // namespace ripple::analysis
