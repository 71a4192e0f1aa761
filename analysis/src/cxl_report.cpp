#include "ripple/analysis/cxl_report.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace ripple::analysis {
namespace {

const char* matching_name(Matching m) { return m == Matching::Address ? "address" : "window"; }

nlohmann::json costs_json(const CxlCosts& c) {
  return {{"mpi_transfer_ns", c.mpi_transfer},
          {"mpi_access_ns", c.mpi_access},
          {"cxl_transfer_ns", c.cxl_transfer},
          {"cxl_access_ns", c.cxl_access},
          {"mpi_access_window_ns", c.mpi_access_window},
          {"cxl_access_window_ns", c.cxl_access_window},
          {"samples", c.samples},
          {"samples_window", c.samples_window},
          {"first_accesses", c.first_accesses}};
}

// µs with 3 decimals: whole ns, the resolution of the transfer costs.
std::string us(double ns) { return fmt::format("{:.3f}", ns * 1e-3); }

}  // namespace

std::string cxl_text(const CxlResult& r) {
  const Matching mt = r.matching;
  std::string out = fmt::format("{}: {} ranks, {:.6g} s; seed 003's model, access matched by {}\n", r.trace, r.ranks, r.duration,
                                matching_name(mt));
  out += fmt::format("weights ({}): MBW {:.3f}  MLAT {:.3f}  CBW {:.3f}  CLAT {:.3f}  Compute {:.3f}\n", r.weights_how,
                     r.weights[0], r.weights[1], r.weights[2], r.weights[3], r.weights[4]);
  out += fmt::format("access: {}", r.access_how);
  out += r.access_how.rfind("load samples", 0) == 0 ? fmt::format("; rate {:.6g} ({})\n", r.sample_rate, r.rate_how) : "\n";
  if (r.published) out += "conventions: the published tool's (rate 1, MLAT = 64 L3_LDM / LD_INS, no first-access split)\n";
  if (r.unpack < 1) out += fmt::format("unpack: {:.3g} of each load from CXL, the rest from DDR\n", r.unpack);
  out += "\ncosts in us, all ranks  (diff = MPI - CXL: > 0, CXL is faster)\n";
  out += fmt::format("{:>18} {:>5} {:>8} {:>12} {:>11} {:>10} {:>11} {:>10} {:>10} {:>10} {:>10} {:>11}\n", "call site", "tag",
                     "receives", "bytes", "MPI trans", "MPI load", "CXL trans", "CXL load", "MPI total", "CXL total", "diff",
                     "CXL load(w)");
  auto row = [&](const std::string& site, const std::string& tag, std::int64_t n, std::int64_t bytes, const CxlCosts& c) {
    const bool addr = mt == Matching::Address;
    out += fmt::format("{:>18} {:>5} {:>8} {:>12} {:>11} {:>10} {:>11} {:>10} {:>10} {:>10} {:>10} {:>11}\n", site, tag, n, bytes,
                       us(c.mpi_transfer), us(addr ? c.mpi_access : c.mpi_access_window), us(c.cxl_transfer),
                       us(addr ? c.cxl_access : c.cxl_access_window), us(c.mpi(mt)), us(c.cxl(mt)), us(c.mpi(mt) - c.cxl(mt)),
                       us(addr ? c.cxl_access_window : c.cxl_access));
  };
  std::int64_t n = 0, bytes = 0;
  for (const CxlGroup& g : r.groups) {
    row(fmt::format("{:#x}", g.call_site), std::to_string(g.tag), g.receives, g.bytes, g.costs);
    n += g.receives;
    bytes += g.bytes;
  }
  row("total", "", n, bytes, r.total);
  out += fmt::format("(the last column: the other matching, {})\n", mt == Matching::Address ? "window" : "address");
  out += fmt::format("\npredicted speed-up of the whole run with every receive through CXL: {:.4f}\n", r.speedup);
  out += "\nbuffers by benefit per byte (best first)\n";
  out += fmt::format("{:>5} {:>18} {:>10} {:>5} {:>8} {:>12} {:>12}\n", "rank", "address", "bytes", "tag", "receives",
                     "benefit us", "ns per byte");
  const std::size_t shown = std::min<std::size_t>(r.buffers.size(), 20);
  for (std::size_t i = 0; i < shown; ++i) {
    const CxlBuffer& b = r.buffers[i];
    out += fmt::format("{:>5} {:>18} {:>10} {:>5} {:>8} {:>12} {:>12.4g}\n", b.rank, fmt::format("{:#x}", b.address), b.extent,
                       b.tag, b.receives, us(b.benefit(mt)), b.benefit(mt) / static_cast<double>(b.extent));
  }
  if (shown < r.buffers.size()) out += fmt::format("... {} more in --json\n", r.buffers.size() - shown);
  if (r.plan)
    out += fmt::format("\nbest set within {} bytes: {} buffers, {} bytes, saving {} us{}\n", r.capacity, r.plan->chosen.size(),
                       r.plan->bytes, us(r.plan->benefit_ns), r.plan->exact ? "" : " (sizes rounded: near the best)");
  for (const std::string& note : r.notes) out += "note: " + note + "\n";
  return out;
}

std::string cxl_json(const CxlResult& r) {
  nlohmann::json j;
  j["schema"] = "ripple-cxl";
  j["schema_version"] = 1;
  j["trace"] = r.trace;
  j["ranks"] = r.ranks;
  j["duration_s"] = r.duration;
  j["matching"] = matching_name(r.matching);
  j["conventions"] = r.published ? "published" : "ripple";
  j["weights"] = {{"MBW", r.weights[0]},  {"MLAT", r.weights[1]},    {"CBW", r.weights[2]},
                  {"CLAT", r.weights[3]}, {"Compute", r.weights[4]}, {"from", r.weights_how}};
  if (r.characterization)
    j["metrics"] = {{"MBW", r.characterization->metric[0]},
                    {"MLAT", r.characterization->metric[1]},
                    {"CBW", r.characterization->metric[2]},
                    {"CLAT", r.characterization->metric[3]}};
  j["access"] = {{"from", r.access_how}, {"rate", r.sample_rate}, {"rate_from", r.rate_how}, {"unpack", r.unpack}};
  for (const CxlGroup& g : r.groups) {
    nlohmann::json e = costs_json(g.costs);
    e["call_site"] = fmt::format("{:#x}", g.call_site);
    e["tag"] = g.tag;
    e["receives"] = g.receives;
    e["bytes"] = g.bytes;
    e["diff_ns"] = g.costs.mpi(r.matching) - g.costs.cxl(r.matching);
    j["groups"].push_back(e);
  }
  j["total"] = costs_json(r.total);
  j["total"]["diff_ns"] = r.total.mpi(r.matching) - r.total.cxl(r.matching);
  j["speedup"] = r.speedup;
  j["buffers"] = nlohmann::json::array();
  for (const CxlBuffer& b : r.buffers) {
    nlohmann::json e = costs_json(b.costs);
    e["rank"] = b.rank;
    e["address"] = fmt::format("{:#x}", b.address);
    e["bytes"] = b.extent;
    e["tag"] = b.tag;
    e["receives"] = b.receives;
    e["benefit_ns"] = b.benefit(r.matching);
    j["buffers"].push_back(e);
  }
  if (r.plan) {
    nlohmann::json chosen = nlohmann::json::array();
    for (int i : r.plan->chosen) chosen.push_back(i);
    j["plan"] = {{"capacity", r.capacity},
                 {"buffers", chosen},
                 {"bytes", r.plan->bytes},
                 {"benefit_ns", r.plan->benefit_ns},
                 {"exact", r.plan->exact}};
  }
  for (const auto& [key, p] : r.machine.params()) j["machine"][key] = {{"value", p.value}, {"source", p.source}};
  j["notes"] = r.notes;
  return j.dump(1) + "\n";
}

}  // namespace ripple::analysis
