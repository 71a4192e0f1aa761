// Mitos with mitoshooks (caps-tum/mitos, docs/cxl.md): the result directory rank 0 merges at
// MPI_Finalize (mitos_<ts>_out_result/):
//   data/samples.csv     Mitos's header (...,pid,tid,time,addr,cpu,latency,level,hit_type,op_type,...);
//                        mitoshooks writes the MPI rank into pid; time is ns of the system clock, the
//                        MPI records' clock; addresses decimal; latency in cycles; level decoded text
//   data/mpi_traces.csv  `;`-separated, no header, each line ending in `;`, one shape per call:
//                          rank;func;callsite;t_start;t_end;                 MPI_Init, MPI_Finalize
//                          ...;buf;count;datatype;peer;comm;request;tag;    MPI_Isend, MPI_Irecv
//                          ...;request;                                      MPI_Wait
//                          ...;array;count;                                  MPI_Waitall
//                        the datatype and communicator by name (MPI_DOUBLE, MPI_COMM_WORLD) or handle;
//                        a request is the address of the caller's MPI_Request variable
//   data/papi_measurements_<rank>.csv  name,value lines, from a second run with MITOS_MEASURE_PAPI
//   hardware.xml         hwloc's topology (not read)
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "mitos_csv.hpp"
#include "ripple/analysis/mitos_import.hpp"
#include "ripple/common/error.hpp"

namespace ripple::analysis {
namespace {

namespace fs = std::filesystem;
using namespace mitos;

constexpr const char* kLayout = "mitoshooks output holds data/samples.csv and data/mpi_traces.csv";

// Bytes of the datatypes mitoshooks names; others it writes as handles, whose size is unknown.
std::optional<std::int64_t> datatype_bytes(const std::string& name) {
  static const std::map<std::string, std::int64_t> sizes = {{"MPI_CHAR", 1},
                                                            {"MPI_SIGNED_CHAR", 1},
                                                            {"MPI_UNSIGNED_CHAR", 1},
                                                            {"MPI_BYTE", 1},
                                                            {"MPI_SHORT", 2},
                                                            {"MPI_UNSIGNED_SHORT", 2},
                                                            {"MPI_INT", 4},
                                                            {"MPI_UNSIGNED", 4},
                                                            {"MPI_FLOAT", 4},
                                                            {"MPI_INT32_T", 4},
                                                            {"MPI_LONG", 8},
                                                            {"MPI_UNSIGNED_LONG", 8},
                                                            {"MPI_LONG_LONG", 8},
                                                            {"MPI_DOUBLE", 8},
                                                            {"MPI_INT64_T", 8},
                                                            {"MPI_LONG_DOUBLE", 16},
                                                            {"MPI_C_DOUBLE_COMPLEX", 16}};
  const auto it = sizes.find(name);
  return it == sizes.end() ? std::nullopt : std::optional(it->second);
}

// A time in ns: an integer (the system clock's ns since 1970 do not fit a double's 53 bits to the ns).
std::optional<std::int64_t> to_ns(const std::string& s) {
  if (auto v = to_int(s)) return v;
  if (auto d = to_double(s)) return static_cast<std::int64_t>(*d);
  return std::nullopt;
}

// Raw times in ns as read, made seconds from the earliest call once everything is read (a sample's
// stray time does not move the base).
struct Clock {
  std::vector<std::int64_t> call_ns, sample_ns;  // two per call, one per sample
  void to_seconds(MitosRecords& r) const {
    std::int64_t base = INT64_MAX;
    for (std::int64_t t : call_ns) base = std::min(base, t);
    for (std::size_t i = 0; i < r.calls.size(); ++i) {
      r.calls[i].t_start = static_cast<double>(call_ns[2 * i] - base) * 1e-9;
      r.calls[i].t_end = static_cast<double>(call_ns[2 * i + 1] - base) * 1e-9;
    }
    for (std::size_t i = 0; i < r.samples.size(); ++i) r.samples[i].time = static_cast<double>(sample_ns[i] - base) * 1e-9;
  }
};

void read_calls(const std::string& path, MitosRecords& r, Clock& clock) {
  std::map<std::string, int> comms{{"MPI_COMM_WORLD", 0}};  // others numbered as they appear
  std::int64_t unknown_types = 0;
  for (const std::string& line : read_lines(path, "the MPI records")) {
    auto f = split(line, ';');
    // Every record ends in `;`: one without it was cut short.
    if (f.size() < 6 || !f.back().empty()) {
      ++r.malformed_rows;
      continue;
    }
    const auto rank = to_int(f[0]);
    const auto site = to_address(f[2]);
    const auto t0 = to_ns(f[3]), t1 = to_ns(f[4]);
    if (!rank || !site || !t0 || !t1 || *rank < 0 || !f[1].starts_with("MPI_") || *t1 < *t0) {
      ++r.malformed_rows;
      continue;
    }
    f.pop_back();
    MitosCall c;
    c.rank = static_cast<int>(*rank);
    c.func = f[1];
    c.call_site = *site;
    const bool send_or_receive = c.func == "MPI_Isend" || c.func == "MPI_Irecv";
    bool ok = true;
    if (f.size() == 12 && send_or_receive) {
      const auto buf = to_address(f[5]);
      const auto count = to_int(f[6]), peer = to_int(f[8]), tag = to_int(f[11]), request = to_int(f[10]);
      const auto bytes = datatype_bytes(f[7]);
      if (!comms.contains(f[9])) comms.emplace(f[9], static_cast<int>(comms.size()));
      ok = buf && count && peer && tag && request && *count >= 0;
      if (ok && !bytes) {  // well formed, but its bytes are unknown: left out, and said
        ++unknown_types;
        continue;
      }
      if (ok) {
        c.buffer = *buf, c.count = *count, c.dtype_size = *bytes, c.peer = static_cast<int>(*peer);
        c.tag = static_cast<int>(*tag), c.request = *request, c.comm = comms[f[9]];
      }
    } else if (f.size() == 6 && c.func == "MPI_Wait") {
      const auto request = to_int(f[5]);
      ok = request.has_value();
      if (ok) c.request = *request;
    } else if (f.size() == 7 && c.func == "MPI_Waitall") {  // the request array and its length
      const auto array = to_address(f[5]);
      const auto count = to_int(f[6]);
      ok = array && count && *count >= 0;
      if (ok) c.buffer = *array, c.count = *count;
    } else {  // MPI_Init, MPI_Finalize
      ok = f.size() == 5 && !send_or_receive && c.func != "MPI_Wait" && c.func != "MPI_Waitall";
    }
    if (!ok) {
      ++r.malformed_rows;
      continue;
    }
    r.calls.push_back(c);
    clock.call_ns.push_back(*t0);
    clock.call_ns.push_back(*t1);
  }
  if (unknown_types > 0)
    r.notes.push_back(
        fmt::format("{} send or receive records name their datatype by a handle (mitoshooks names only "
                    "MPI_DOUBLE and MPI_INT), whose size is unknown: left out, with their completions",
                    unknown_types));
  if (r.calls.empty()) throw InputError(fmt::format("{}: no MPI record parses", path));
}

void read_samples(const std::string& path, MitosRecords& r, Clock& clock) {
  const auto lines = read_lines(path, "the samples");
  if (lines.empty()) throw InputError(fmt::format("{}: the samples are empty (no header)", path));
  const auto header = split(lines[0], ',');
  const auto column = header_index(header);
  for (const char* c : {"addr", "latency", "level", "time"})
    if (!column.contains(c))
      throw InputError(
          fmt::format("{}: the samples have no column {} (a header naming addr, latency, level and time: "
                      "Mitos's post-processing writes it; raw samples have none)",
                      path, c));
  // Older Mitos builds name the rank; mitoshooks writes it into pid.
  const std::string rank_column = column.contains("rank") ? "rank" : column.contains("pid") ? "pid" : "";
  if (rank_column == "pid") r.notes.push_back("samples: the rank from the pid column (mitoshooks writes the MPI rank there)");
  const std::size_t width = header.size();  // an IBS header names a column twice
  auto field = [&](const std::vector<std::string>& row, const char* name) -> const std::string* {
    const auto it = column.find(name);
    return it == column.end() ? nullptr : &row[it->second];
  };
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto row = split(lines[i], ',');
    if (row.size() != width) {
      ++r.malformed_rows;
      continue;
    }
    const auto addr = to_address(*field(row, "addr"));
    const auto lat = to_int(*field(row, "latency"));
    const auto time = to_ns(*field(row, "time"));
    const auto rank = rank_column.empty() ? std::optional<std::int64_t>(-1) : to_int(*field(row, rank_column.c_str()));
    if (!addr || !lat || !time || !rank || *lat < 0) {
      ++r.malformed_rows;
      continue;
    }
    MitosSample s;
    s.addr = *addr;
    s.cycles = static_cast<std::uint64_t>(*lat);
    s.rank = static_cast<int>(*rank);
    s.level = mitos_level(*field(row, "level"));
    // A miss of a cache level, or of an unknown source (PEBS's "L3 miss" without where it was served):
    // served beyond the caches, a miss for the model.
    const std::string* hit = field(row, "hit_type");
    if (hit != nullptr && hit->find("Miss") != std::string::npos && s.level <= mitos_level("LFB"))
      s.level = mitos_level("Local RAM");
    const std::string* op = field(row, "op_type");
    s.prefetch = op != nullptr && op->find("fetch") != std::string::npos;  // "Prefetch", perf's "Pfetch"
    if (const std::string* v = field(row, "cpu")) s.cpu = static_cast<int>(to_int(*v).value_or(-1));
    if (const std::string* v = field(row, "tid")) s.pid = to_int(*v).value_or(-1);
    if (const std::string* v = field(row, "ip")) s.ip = to_address(*v).value_or(0);
    r.samples.push_back(s);
    clock.sample_ns.push_back(*time);
  }
}

// data/papi_measurements_<rank>.csv: the rank's whole-run PAPI counts. mem_traffic (bytes read from
// memory) is its socket's, repeated on each of the socket's ranks: taken once (the largest), as the
// cas_count_read the model reads; the derived *_density values and the time are left out.
void read_papi(const std::vector<std::string>& files, MitosRecords& r) {
  double traffic = -1;
  for (const std::string& path : files) {
    const std::string name = fs::path(path).stem().string();
    const auto rank = to_int(name.substr(name.rfind('_') + 1));
    if (!rank || *rank < 0) {
      r.notes.push_back(fmt::format("{}: no rank in the name (papi_measurements_RANK.csv): not read", path));
      continue;
    }
    for (const std::string& line : read_lines(path, "the PAPI measurements")) {
      const auto f = split(line, ',');
      const auto v = f.size() == 2 && !f[0].empty() ? to_double(f[1]) : std::nullopt;
      if (!v) {
        ++r.malformed_rows;
        continue;
      }
      if (f[0] == "mem_traffic") traffic = std::max(traffic, *v);
      if (f[0].starts_with("PAPI_")) r.counters[static_cast<int>(*rank)][f[0]] = *v;
    }
  }
  if (traffic >= 0) {
    r.counters[0]["cas_count_read"] = traffic / 64;
    r.notes.push_back("PAPI: mem_traffic is a socket's, taken once (one socket assumed)");
  }
}

}  // namespace

MitosRecords read_mitoshooks(const std::string& dir) {
  MitosRecords r;
  r.variant = "mitoshooks";
  const fs::path root(dir);
  Clock clock;
  for (const char* name : {"samples.csv", "mpi_traces.csv"})
    if (!fs::is_regular_file(root / "data" / name)) throw InputError(fmt::format("{}: no data/{} ({})", dir, name, kLayout));
  read_calls((root / "data" / "mpi_traces.csv").string(), r, clock);
  read_samples((root / "data" / "samples.csv").string(), r, clock);
  clock.to_seconds(r);
  const auto papi = files_like((root / "data").string(), "papi_measurements_", ".csv");
  if (papi.empty())
    r.notes.push_back("no data/papi_measurements_*.csv (a run with MITOS_MEASURE_PAPI=DIR writes them): no counters");
  read_papi(papi, r);
  int ranks = 0;
  for (const MitosCall& c : r.calls) ranks = std::max(ranks, c.rank + 1);
  for (auto it = r.counters.begin(); it != r.counters.end();)
    if (it->first >= ranks) {
      r.notes.push_back(fmt::format("data/papi_measurements_{}.csv: no such rank in the MPI records: not read", it->first));
      it = r.counters.erase(it);
    } else {
      ++it;
    }
  return r;
}

// By the samples' header: the simulator's names its MSHR and prefetch columns; Mitos's does not.
std::string detect_mitos_variant(const std::string& dir) {
  const fs::path root(dir);
  if (!fs::is_directory(root)) throw InputError(fmt::format("{}: not a directory", dir));
  for (const fs::path& samples : {root / "data" / "samples.csv", root / "samples.csv"}) {
    if (!fs::is_regular_file(samples)) continue;
    std::ifstream in(samples);
    std::string first;
    std::getline(in, first);
    const auto header = split(first, ',');
    const bool simulator =
        std::find(header.begin(), header.end(), "mshr") != header.end() || (header.size() == 9 && header[0] != "source");
    return simulator ? "simulator" : "mitoshooks";
  }
  // No samples: the simulator's run by its counters, else mitoshooks (whose reader says what is missing).
  if (fs::exists(root / "counters.csv") || fs::exists(root / "data" / "counters.csv")) return "simulator";
  if (fs::exists(root / "data")) return "mitoshooks";
  throw InputError(
      fmt::format("{}: neither mitoshooks output (data/samples.csv, data/mpi_traces.csv) nor a simulator run "
                  "(samples.csv, mpi_trace.csv, counters.csv)",
                  dir));
}

}  // namespace ripple::analysis
