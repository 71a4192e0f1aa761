#include "ripple/model/config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include <cmath>
#include <fstream>
#include <map>
#include <numbers>
#include <set>
#include <sstream>

#include "ripple/common/error.hpp"

namespace ripple::model {
namespace {

// Reads one TOML table strictly: every key read is remembered, a missing key gets its default
// written back (so the table becomes the resolved configuration), and finish() rejects leftovers.
class Section {
public:
  Section(toml::table& root, std::string name, std::string source) : name_(std::move(name)), source_(std::move(source)) {
    toml::node* node = root.get(name_);
    if (node == nullptr) {
      root.insert(name_, toml::table{});
      node = root.get(name_);
    }
    table_ = node->as_table();
    if (table_ == nullptr) fail_section("must be a table, like [" + name_ + "]");
  }
  Section(toml::table* table, std::string name, std::string source)
      : table_(table), name_(std::move(name)), source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw InputError(fmt::format("{}: [{}] {}: {}", source_, name_, key, what));
  }
  [[noreturn]] void fail_section(const std::string& what) const {
    throw InputError(fmt::format("{}: [{}] {}", source_, name_, what));
  }

  toml::node* find(const std::string& key) {
    used_.insert(key);
    return table_->get(key);
  }

  double number(const std::string& key, std::optional<double> fallback) {
    toml::node* n = find(key);
    if (n == nullptr) {
      if (!fallback) fail(key, "is required: add it as a number");
      table_->insert(key, *fallback);
      return *fallback;
    }
    return as_number(key, *n);
  }

  double as_number(const std::string& key, const toml::node& n) const {
    std::optional<double> v;
    if (n.is_integer())
      v = static_cast<double>(*n.value<std::int64_t>());
    else if (n.is_floating_point())
      v = *n.value<double>();
    if (!v) fail(key, fmt::format("expected a number, got a {}", type_name(n)));
    if (!std::isfinite(*v)) fail(key, "must be a finite number (NaN and inf are not allowed)");
    return *v;
  }

  std::int64_t integer(const std::string& key, std::optional<std::int64_t> fallback) {
    toml::node* n = find(key);
    if (n == nullptr) {
      if (!fallback) fail(key, "is required: add it as an integer");
      table_->insert(key, *fallback);
      return *fallback;
    }
    if (!n->is_integer()) fail(key, fmt::format("expected an integer, got a {}", type_name(*n)));
    return *n->value<std::int64_t>();
  }

  bool boolean(const std::string& key, bool fallback) {
    toml::node* n = find(key);
    if (n == nullptr) {
      table_->insert(key, fallback);
      return fallback;
    }
    if (!n->is_boolean()) fail(key, fmt::format("expected true or false, got a {}", type_name(*n)));
    return *n->value<bool>();
  }

  std::string string(const std::string& key, const std::string& fallback) {
    toml::node* n = find(key);
    if (n == nullptr) {
      table_->insert(key, fallback);
      return fallback;
    }
    if (!n->is_string()) fail(key, fmt::format("expected a string, got a {}", type_name(*n)));
    return *n->value<std::string>();
  }

  template <class Enum>
  Enum choice(const std::string& key, const std::string& fallback, const std::map<std::string, Enum>& options) {
    const std::string v = string(key, fallback);
    const auto it = options.find(v);
    if (it == options.end()) {
      std::vector<std::string> names;
      for (const auto& [name, _] : options) names.push_back('"' + name + '"');
      fail(key, fmt::format("unknown value \"{}\": use one of {}", v, fmt::join(names, ", ")));
    }
    return it->second;
  }

  // A number or an array of numbers.
  std::vector<double> numbers(const std::string& key, std::optional<double> fallback) {
    toml::node* n = find(key);
    if (n == nullptr || !n->is_array()) return {number(key, fallback)};
    std::vector<double> out;
    for (const toml::node& e : *n->as_array()) out.push_back(as_number(key, e));
    if (out.empty()) fail(key, "is an empty array");
    return out;
  }

  std::vector<std::int64_t> integers(const std::string& key, const std::vector<std::int64_t>& fallback) {
    toml::node* n = find(key);
    if (n == nullptr) {
      toml::array a;
      for (auto v : fallback) a.push_back(v);
      table_->insert(key, a);
      return fallback;
    }
    if (!n->is_array()) fail(key, fmt::format("expected an array of integers, got a {}", type_name(*n)));
    std::vector<std::int64_t> out;
    for (const toml::node& e : *n->as_array()) {
      if (!e.is_integer()) fail(key, fmt::format("expected an array of integers, found a {}", type_name(e)));
      out.push_back(*e.value<std::int64_t>());
    }
    return out;
  }

  void finish() const {
    for (const auto& [k, _] : *table_) {
      const std::string key(k.str());
      if (!used_.contains(key)) fail(key, "unknown key: check the spelling against docs/model.md");
    }
  }

private:
  static std::string type_name(const toml::node& n) {
    switch (n.type()) {
      case toml::node_type::string:
        return "string";
      case toml::node_type::integer:
        return "integer";
      case toml::node_type::floating_point:
        return "float";
      case toml::node_type::boolean:
        return "boolean";
      case toml::node_type::array:
        return "array";
      case toml::node_type::table:
        return "table";
      default:
        return "date or time";
    }
  }

  toml::table* table_ = nullptr;
  std::string name_;
  std::string source_;
  std::set<std::string> used_;
};

void apply_override(toml::table& root, const std::string& assignment) {
  const auto eq = assignment.find('=');
  const auto dot = assignment.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq)
    throw InputError(fmt::format("--set {}: expected section.key=value, e.g. --set model.oscillators=100", assignment));
  const std::string section = assignment.substr(0, dot);
  const std::string key = assignment.substr(dot + 1, eq - dot - 1);
  const std::string value = assignment.substr(eq + 1);
  toml::node* sec = root.get(section);
  if (sec == nullptr) {
    root.insert(section, toml::table{});
    sec = root.get(section);
  }
  if (!sec->is_table()) throw InputError(fmt::format("--set {}: [{}] is not a table", assignment, section));
  toml::table parsed;
  try {
    parsed = toml::parse("v = " + value);
  } catch (const toml::parse_error&) {
    parsed.insert("v", value);  // a bare word such as tanh is taken as a string
  }
  sec->as_table()->insert_or_assign(key, *parsed.get("v"));
}

void validate(SimConfig& c) {
  const std::string& src = c.source;
  auto bad = [&](const std::string& where, const std::string& what) {
    throw InputError(fmt::format("{}: {}: {}", src, where, what));
  };
  const std::int64_t n = c.model.oscillators;
  if (n <= 0) bad("[model] oscillators", fmt::format("must be a positive integer, got {}", n));
  for (const auto* name : {"t_comp", "t_comm"}) {
    const auto& v = std::string(name) == "t_comp" ? c.model.t_comp : c.model.t_comm;
    if (v.size() != 1 && static_cast<std::int64_t>(v.size()) != n)
      bad(fmt::format("[model] {}", name),
          fmt::format("has {} values; give one number or an array of {} (oscillators)", v.size(), n));
    for (double x : v)
      if (x < 0) bad(fmt::format("[model] {}", name), fmt::format("times must not be negative, got {}", x));
  }
  for (std::int64_t i = 0; i < n; i += (c.model.t_comp.size() == 1 && c.model.t_comm.size() == 1) ? n : 1)
    if (c.t_comp(i) + c.t_comm(i) <= 0) bad("[model] t_comp + t_comm", fmt::format("must be positive (oscillator {})", i));
  if (c.model.frequency_spread < 0 || c.model.frequency_spread >= 1)
    bad("[model] frequency_spread", "must lie in [0, 1): it is a relative half-width");
  if (c.model.sigma <= 0 || c.model.sigma > std::numbers::pi) bad("[model] sigma", "must lie in (0, pi]");
  if (c.model.kappa_mode == KappaMode::Value && c.model.kappa_value < 0) bad("[model] kappa", "must not be negative");
  if (c.model.strength && *c.model.strength < 0) bad("[model] strength", "must not be negative");

  auto& topo = c.topology;
  if (topo.kind == TopologyKind::Chain || topo.kind == TopologyKind::Ring) {
    if (topo.distances.empty()) bad("[topology] distances", "must list at least one distance, e.g. [-1, 1]");
    for (auto d : topo.distances)
      if (d == 0 || (std::abs(d) >= n && n > 1))
        bad("[topology] distances",
            fmt::format("distance {} is not allowed: use nonzero distances below oscillators = {}", d, n));
  }
  if (topo.kind == TopologyKind::Grid2D || topo.kind == TopologyKind::Grid3D) {
    const size_t want = topo.kind == TopologyKind::Grid2D ? 2 : 3;
    if (topo.dims.size() != want)
      bad("[topology] dims", fmt::format("needs {} extents for {}", want, want == 2 ? "grid2d" : "grid3d"));
    std::int64_t prod = 1;
    for (auto d : topo.dims) {
      if (d <= 0) bad("[topology] dims", "extents must be positive");
      if (__builtin_mul_overflow(prod, d, &prod)) bad("[topology] dims", "the product of the extents overflows");
    }
    if (prod != n) bad("[topology] dims", fmt::format("product {} differs from oscillators = {}", prod, n));
  }
  if (topo.kind == TopologyKind::File && topo.file.empty()) bad("[topology] file", "is required for kind = \"file\"");

  if (c.noise.amplitude < 0) bad("[noise] amplitude", "must not be negative");
  if (c.noise.interval < 0) bad("[noise] interval", "must not be negative");
  if (c.delay.mean < 0) bad("[delay] mean", "must not be negative");
  if (c.delay.jitter < 0 || (c.delay.jitter > 0 && c.delay.jitter >= c.delay.mean))
    bad("[delay] jitter", "must lie in [0, mean): delays stay positive");
  if (c.delay.interval < 0) bad("[delay] interval", "must not be negative");
  if (c.model.potential == Potential::Wait) {
    if (c.model.normalization != Normalization::None)
      bad("[model] normalization",
          "potential = \"wait\" holds a process for its latest partner (a maximum, not a sum): use \"none\" or leave it out");
    for (const double v : c.model.t_comm)
      if (!(v > 0))
        bad("[model] t_comm",
            "potential = \"wait\" needs t_comm > 0 for every oscillator: its hold lies in the communication part");
    if (c.delay.mean <= 0)
      bad("[delay] mean",
          "potential = \"wait\" needs a positive delay (a message's latency): leave it out for half the mean t_comm");
  }
  if (c.delay.mean > 0 && topo.kind == TopologyKind::All && c.model.potential == Potential::Kuramoto)
    bad("[delay] mean", "delays are not supported with the all-to-all mean-field Kuramoto model; use a graph topology");
  for (size_t k = 0; k < c.kicks.size(); ++k) {
    const auto& kick = c.kicks[k];
    const std::string where = fmt::format("[[kick]] #{}", k + 1);
    if (kick.oscillator < 0 || kick.oscillator >= n)
      bad(where + " oscillator", fmt::format("{} is out of range [0, {})", kick.oscillator, n));
    if (kick.time < 0 || kick.time >= c.solver.t_end)
      bad(where + " time", fmt::format("{} is not in [0, t_end = {})", kick.time, c.solver.t_end));
    if (kick.delay < 0) bad(where + " delay", "must not be negative");
  }
  if (c.initial.kind == InitialKind::File && c.initial.file.empty()) bad("[initial] file", "is required for kind = \"file\"");
  if (c.initial.spread < 0) bad("[initial] spread", "must not be negative");
  if (c.solver.rtol <= 0) bad("[solver] rtol", "must be positive");
  if (c.solver.atol <= 0) bad("[solver] atol", "must be positive");
  if (c.solver.t_end <= 0) bad("[solver] t_end", "must be positive");
  if (c.solver.dt < 0) bad("[solver] dt", "must not be negative");
  if (c.output.interval < 0) bad("[output] interval", "must not be negative");
  if (c.output.file.empty()) bad("[output] file", "must name the HDF5 file to write");
  if (c.output.flush_seconds < 0) bad("[output] flush_seconds", "must not be negative");
  // Interval counts: stored rows, and segments at noise and jitter boundaries.
  const double rows = c.output.interval > 0 ? c.solver.t_end / c.output.interval + 1 : 101;
  if (rows > 1e7)
    bad("[output] interval", fmt::format("gives {:.3g} stored states (at most 1e7): choose a larger interval", rows));
  if (rows * static_cast<double>(n) > 0x1p37)
    bad("[output] interval", fmt::format("/phase would hold {:.3g} values (at most 2^37 = 1 TiB): choose a larger interval",
                                         rows * static_cast<double>(n)));
  if (c.noise.kind != NoiseKind::None && c.noise.amplitude > 0 && c.solver.t_end / c.noise_interval() > 1e9)
    bad("[noise] interval", "gives more than 1e9 noise intervals before t_end: choose a larger interval");
  if (c.delay.jitter > 0 && c.solver.t_end / c.delay_interval() > 1e9)
    bad("[delay] interval", "gives more than 1e9 jitter intervals before t_end: choose a larger interval");
}

// The mean period, or 0 while the times do not fit the number of oscillators (validate() says so).
double mean_period_if_valid(const SimConfig& c) {
  const std::int64_t n = c.model.oscillators;
  const auto fits = [n](const std::vector<double>& v) { return v.size() == 1 || static_cast<std::int64_t>(v.size()) == n; };
  return n > 0 && fits(c.model.t_comp) && fits(c.model.t_comm) ? c.mean_period() : 0.0;
}

// `wait`'s default message latency: half the mean communication part (the other half is the slack
// a late partner may use up before a process waits for it).
double half_mean_t_comm_if_valid(const SimConfig& c) {
  if (mean_period_if_valid(c) == 0.0) return 0.0;
  double sum = 0;
  for (const double v : c.model.t_comm) sum += v;
  return 0.5 * sum / static_cast<double>(c.model.t_comm.size());
}

}  // namespace

double SimConfig::mean_period() const {
  if (mean_period_ >= 0) return mean_period_;
  const std::int64_t n = model.oscillators;
  if (model.t_comp.size() == 1 && model.t_comm.size() == 1) return mean_period_ = model.t_comp[0] + model.t_comm[0];
  double sum = 0;
  for (std::int64_t i = 0; i < n; ++i) sum += t_comp(i) + t_comm(i);
  return mean_period_ = sum / static_cast<double>(n);
}

SimConfig parse_config(const std::string& toml_text, const std::string& source, const std::vector<std::string>& overrides) {
  toml::table root;
  try {
    root = toml::parse(toml_text, source);
  } catch (const toml::parse_error& e) {
    throw InputError(
        fmt::format("{}:{}:{}: TOML syntax error: {}", source, e.source().begin.line, e.source().begin.column, e.description()));
  }
  for (const auto& o : overrides) apply_override(root, o);
  static const std::set<std::string> sections{"model", "topology", "noise", "delay", "kick", "initial", "solver", "output"};
  for (const auto& [k, _] : root)
    if (!sections.contains(std::string(k.str())))
      throw InputError(fmt::format("{}: unknown section [{}]: use model, topology, noise, delay, kick, initial, solver or output",
                                   source, k.str()));

  SimConfig c;
  c.source = source;
  {
    Section s(root, "model", source);
    c.model.oscillators = s.integer("oscillators", std::nullopt);
    c.model.t_comp = s.numbers("t_comp", std::nullopt);
    c.model.t_comm = s.numbers("t_comm", 0.0);
    c.model.frequency_spread = s.number("frequency_spread", 0.0);
    c.model.frequency_distribution = s.choice<FrequencyDistribution>("frequency_distribution", "grid",
                                                                     {{"grid", FrequencyDistribution::Grid},
                                                                      {"uniform", FrequencyDistribution::Uniform},
                                                                      {"normal", FrequencyDistribution::Normal},
                                                                      {"lorentzian", FrequencyDistribution::Lorentzian}});
    c.model.frequency_seed = static_cast<std::uint64_t>(s.integer("frequency_seed", 1));
    c.model.potential = s.choice<Potential>("potential", "tanh",
                                            {{"tanh", Potential::Tanh},
                                             {"kuramoto", Potential::Kuramoto},
                                             {"bottleneck", Potential::Bottleneck},
                                             {"wait", Potential::Wait}});
    c.model.sigma = s.number("sigma", std::numbers::pi);
    c.model.beta = s.choice<int>("protocol", "eager", {{"eager", 1}, {"rendezvous", 2}});
    toml::node* kappa = s.find("kappa");
    if (kappa == nullptr || kappa->is_string()) {
      c.model.kappa_mode = s.choice<KappaMode>("kappa", "sum", {{"sum", KappaMode::Sum}, {"max", KappaMode::Max}});
    } else {
      c.model.kappa_mode = KappaMode::Value;
      c.model.kappa_value = s.as_number("kappa", *kappa);
    }
    if (s.find("strength") != nullptr) c.model.strength = s.number("strength", std::nullopt);
    // `wait` takes the latest partner, not a sum over partners: nothing to normalise.
    c.model.normalization =
        s.choice<Normalization>("normalization", c.model.potential == Potential::Wait ? "none" : "N",
                                {{"N", Normalization::N}, {"degree", Normalization::Degree}, {"none", Normalization::None}});
    s.finish();
  }
  {
    Section s(root, "topology", source);
    c.topology.kind = s.choice<TopologyKind>("kind", "chain",
                                             {{"chain", TopologyKind::Chain},
                                              {"ring", TopologyKind::Ring},
                                              {"grid2d", TopologyKind::Grid2D},
                                              {"grid3d", TopologyKind::Grid3D},
                                              {"all", TopologyKind::All},
                                              {"file", TopologyKind::File}});
    c.topology.distances = s.integers("distances", {-1, 1});
    c.topology.dims = s.integers("dims", {});
    c.topology.periodic = s.boolean("periodic", false);
    c.topology.file = s.string("file", "");
    s.finish();
  }
  {
    Section s(root, "noise", source);
    c.noise.kind = s.choice<NoiseKind>("kind", "none",
                                       {{"none", NoiseKind::None},
                                        {"exponential", NoiseKind::Exponential},
                                        {"uniform", NoiseKind::Uniform},
                                        {"normal", NoiseKind::Normal}});
    c.noise.amplitude = s.number("amplitude", 0.0);
    c.noise.seed = static_cast<std::uint64_t>(s.integer("seed", 1));
    c.noise.interval = s.number("interval", 0.0);
    s.finish();
  }
  {
    Section s(root, "delay", source);
    // `wait`: a message is seen its latency after it is posted.
    const bool wait_default = c.model.potential == Potential::Wait && s.find("mean") == nullptr;
    c.delay.mean = s.number("mean", wait_default ? half_mean_t_comm_if_valid(c) : 0.0);
    c.delay.jitter = s.number("jitter", 0.0);
    c.delay.seed = static_cast<std::uint64_t>(s.integer("seed", 1));
    c.delay.interval = s.number("interval", 0.0);
    s.finish();
  }
  if (toml::node* kicks = root.get("kick")) {
    toml::array* arr = kicks->as_array();
    if (arr == nullptr)
      throw InputError(fmt::format("{}: [[kick]] must be an array of tables: write [[kick]], not [kick]", source));
    for (size_t k = 0; k < arr->size(); ++k) {
      toml::table* t = (*arr)[k].as_table();
      if (t == nullptr) throw InputError(fmt::format("{}: [[kick]] #{} must be a table", source, k + 1));
      Section s(t, fmt::format("[kick] #{}", k + 1), source);
      Kick kick;
      kick.oscillator = s.integer("oscillator", std::nullopt);
      kick.time = s.number("time", std::nullopt);
      kick.delay = s.number("delay", std::nullopt);
      s.finish();
      c.kicks.push_back(kick);
    }
  }
  {
    Section s(root, "initial", source);
    c.initial.kind = s.choice<InitialKind>(
        "kind", "sync", {{"sync", InitialKind::Sync}, {"random", InitialKind::Random}, {"file", InitialKind::File}});
    c.initial.spread = s.number("spread", 0.0);
    c.initial.seed = static_cast<std::uint64_t>(s.integer("seed", 1));
    c.initial.file = s.string("file", "");
    s.finish();
  }
  {
    Section s(root, "solver", source);
    c.solver.method = s.choice<Method>("method", "dopri5", {{"dopri5", Method::Dopri5}, {"rk4", Method::Rk4}});
    c.solver.rtol = s.number("rtol", 1e-8);
    c.solver.atol = s.number("atol", 1e-8);
    c.solver.norm = s.choice<ErrorNorm>("norm", "max", {{"max", ErrorNorm::Max}, {"rms", ErrorNorm::Rms}});
    c.solver.t_end = s.number("t_end", std::nullopt);
    c.solver.dt = s.number("dt", 0.0);
    s.finish();
  }
  {
    Section s(root, "output", source);
    c.output.file = s.string("file", "sim.h5");
    c.output.interval = s.number("interval", 0.0);
    c.output.iterations = s.boolean("iterations", false);
    c.output.flush_seconds = s.number("flush_seconds", 60.0);
    s.finish();
  }
  validate(c);
  std::ostringstream os;
  os << root;
  c.resolved_toml = os.str();
  return c;
}

SimConfig load_config(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("cannot read configuration file '{}': check the path", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_config(ss.str(), path, overrides);
}

}  // namespace ripple::model
