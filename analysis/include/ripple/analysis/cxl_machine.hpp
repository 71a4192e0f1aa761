#pragma once
// The machine file of seed 003's model (docs/cxl.md): every parameter `ripple cxl` needs, each marked
// measured (by `ripple calibrate`, with how and its spread) or given (the paper's default, or --set).
// TOML, one table per key. The paper's key names are accepted as aliases of Ripple's.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ripple::analysis {

struct MachineParam {
  double value = 0;
  std::string source = "given";  // "measured" or "given"
  std::string how;               // provenance: the method, or where a given value comes from
  double spread = 0;             // measured: (median - best) / best over the repetitions; 0 for given values
};

// What every key means: its unit, the paper's default, and whether a machine file must hold it.
struct MachineKey {
  const char* name;
  const char* unit;
  double fallback;  // the paper's value (seed 003, V-B and V-C3)
  bool required;    // false: the optional weights (WEIGHT_*), used where a trace has no counters
  const char* meaning;
};
const std::vector<MachineKey>& machine_keys();
// Ripple's name of a key, also for the paper's aliases (CXL_LAT, MEM_LAT, ...); nullopt if unknown.
std::optional<std::string> canonical_key(const std::string& name);

class Machine {
public:
  // Every required key at the paper's value, marked given.
  static Machine defaults();
  [[nodiscard]] double operator[](const std::string& key) const;  // throws InputError if missing
  [[nodiscard]] bool has(const std::string& key) const { return params_.count(key) != 0; }
  [[nodiscard]] const MachineParam& param(const std::string& key) const;
  void set(const std::string& key, MachineParam p);  // key: canonical or alias; InputError if unknown
  // "KEY=VALUE" (--set): given, "--set". InputError with one line for an unknown key or a bad value.
  void set_from_text(const std::string& assignment);
  [[nodiscard]] const std::map<std::string, MachineParam>& params() const { return params_; }

private:
  std::map<std::string, MachineParam> params_;
};

// Parses a machine file; InputError (naming `source`) for bad TOML, an unknown key, a value that is not
// a finite number, or a missing required key.
Machine parse_machine(const std::string& toml_text, const std::string& source);
Machine load_machine(const std::string& path);
// The machine file's text (a comment header, then one table per key in machine_keys() order).
std::string machine_toml(const Machine& m, const std::string& header_comment);

}  // namespace ripple::analysis
