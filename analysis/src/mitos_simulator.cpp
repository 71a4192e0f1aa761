// The simulator variant of seed 003's toolchain (docs/cxl.md): samples.csv
// (time,addr,core,level,latency,prefetched,pid,command,mshr), mpi_trace.csv (`;`-separated, no header,
// all ranks: rank;func;callsite;t_start;t_end;buf;count;dtype_size;peer;comm;request;tag; MPI_Wait rows
// carry the request in the buffer field) and counters.csv (key,value lines, the whole run).
#include <fmt/format.h>

#include <filesystem>

#include "mitos_csv.hpp"
#include "ripple/analysis/mitos_import.hpp"
#include "ripple/common/error.hpp"

namespace ripple::analysis {
namespace {

namespace fs = std::filesystem;
using namespace mitos;

// The run's file NAME, in DIR or DIR/data (where the simulator's tracer writes samples.csv and
// mpi_traces.csv), under any of its names.
std::string need(const std::string& dir, std::initializer_list<const char*> names) {
  for (const char* sub : {"", "data"})
    for (const char* name : names)
      if (fs::path path = fs::path(dir) / sub / name; fs::is_regular_file(path)) return path.string();
  throw InputError(
      fmt::format("{}: no {} (a Mitos simulator run holds samples.csv, mpi_trace.csv and counters.csv)", dir, *names.begin()));
}

// A request or address field: a signed integer, or 0x-hex.
std::optional<std::int64_t> to_id(const std::string& s) {
  if (auto v = to_int(s)) return v;
  if (auto a = to_address(s)) return static_cast<std::int64_t>(*a);
  return std::nullopt;
}

void read_calls(const std::string& path, MitosRecords& r) {
  for (const std::string& line : read_lines(path, "the MPI records")) {
    auto f = split(line, ';');
    if (f.size() == 13 && f.back().empty()) f.pop_back();  // a record that ends in `;`, as mitoshooks writes them
    if (f.size() != 12) {
      ++r.malformed_rows;
      continue;
    }
    const auto rank = to_int(f[0]), count = to_int(f[6]), size = to_int(f[7]), peer = to_int(f[8]), tag = to_int(f[11]);
    const auto site = to_address(f[2]), buf = to_address(f[5]);
    const auto t0 = to_double(f[3]), t1 = to_double(f[4]);
    const auto comm = to_id(f[9]), req = to_id(f[10]);
    if (!rank || !site || !t0 || !t1 || !buf || !count || !size || !peer || !comm || !req || !tag || *rank < 0 ||
        !f[1].starts_with("MPI_") || *t1 < *t0) {
      ++r.malformed_rows;
      continue;
    }
    MitosCall c{
        static_cast<int>(*rank), f[1], *site, *t0, *t1, *buf, *count, *size, static_cast<int>(*peer), static_cast<int>(*comm),
        static_cast<int>(*tag),  *req};
    if (c.func == "MPI_Wait") {  // the request rides in the buffer field
      c.request = static_cast<std::int64_t>(c.buffer);
      c.buffer = 0;
    }
    r.calls.push_back(c);
  }
  if (r.calls.empty()) throw InputError(fmt::format("{}: no MPI record parses", path));
}

void read_samples(const std::string& path, MitosRecords& r) {
  const auto lines = read_lines(path, "the samples");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto f = split(lines[i], ',');
    if (i == 0 && !f.empty() && f[0] == "time") continue;  // the header, where there is one
    if (f.size() != 9) {
      ++r.malformed_rows;
      continue;
    }
    const auto time = to_double(f[0]);
    const auto addr = to_address(f[1]);
    const auto core = to_int(f[2]), lat = to_int(f[4]), pid = to_int(f[6]);
    const auto pf = to_bool(f[5]), mshr = to_bool(f[8]);
    const int level = mitos_level(f[3]);
    if (!time || !addr || !core || !lat || !pf || !mshr || !pid || level == 0 || *lat < 0) {
      ++r.malformed_rows;
      continue;
    }
    MitosSample s;
    s.pid = *pid;
    s.time = *time;
    s.addr = *addr;
    s.cycles = static_cast<std::uint64_t>(*lat);
    s.level = *mshr ? mitos_level("LFB") : level;  // an MSHR sample: the line was in flight
    s.cpu = static_cast<int>(*core);
    s.prefetch = *pf;
    r.samples.push_back(s);
  }
}

void read_counters(const std::string& path, MitosRecords& r) {
  auto& totals = r.counters[-1];
  for (const std::string& line : read_lines(path, "the counters")) {
    const auto f = split(line, ',');
    if (f.size() == 2 && f[0] == "key" && f[1] == "value") continue;
    const auto v = f.size() == 2 && !f[0].empty() ? to_double(f[1]) : std::nullopt;
    if (!v) {
      ++r.malformed_rows;
      continue;
    }
    totals[f[0]] = *v;
  }
}

}  // namespace

MitosRecords read_mitos_simulator(const std::string& dir) {
  MitosRecords r;
  r.variant = "simulator";
  r.prefetch_known = true;  // its `prefetched` column says which hits a prefetch brought
  const std::string samples = need(dir, {"samples.csv"}), calls = need(dir, {"mpi_trace.csv", "mpi_traces.csv"}),
                    counters = need(dir, {"counters.csv"});
  read_calls(calls, r);
  read_samples(samples, r);
  read_counters(counters, r);
  return r;
}

}  // namespace ripple::analysis
