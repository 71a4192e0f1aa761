// Mitos with mitoshooks (docs/cxl.md): data/samples.csv (Mitos's header: ...,pid,tid,time,addr,cpu,
// latency,level,hit_type,op_type,...; mitoshooks adds rank), data/mpi*.csv (a header naming rank,
// func, callsite, t_start, t_end, buf, count, dtype_size, peer, comm, request, tag), data/papi*.csv
// (a header naming PAPI events, with rank where there are several rows) and hwdata/hwloc.xml. Times
// are ns of one clock (perf's); columns are found by name, in any order.
#include <fmt/format.h>

#include <filesystem>

#include "mitos_csv.hpp"
#include "ripple/analysis/mitos_import.hpp"
#include "ripple/common/error.hpp"

namespace ripple::analysis {
namespace {

namespace fs = std::filesystem;
using namespace mitos;

constexpr const char* kLayout = "mitoshooks output holds data/samples.csv, data/mpi*.csv, data/papi*.csv, hwdata/hwloc.xml";

struct Table {
  std::string path;
  std::map<std::string, std::size_t> column;
  std::vector<std::vector<std::string>> rows;
  [[nodiscard]] const std::string* get(const std::vector<std::string>& row, const char* name) const {
    const auto it = column.find(name);
    return it == column.end() || it->second >= row.size() ? nullptr : &row[it->second];
  }
};

// A CSV with a header; InputError if a required column is missing. Rows of another width are malformed.
Table read_table(const std::string& path, const char* what, std::initializer_list<const char*> required, MitosRecords& r) {
  const auto lines = read_lines(path, what);
  if (lines.empty()) throw InputError(fmt::format("{}: {} is empty", path, what));
  Table t{path, header_index(split(lines[0], ',')), {}};
  for (const char* c : required)
    if (!t.column.contains(c)) throw InputError(fmt::format("{}: {} has no column {}", path, what, c));
  const std::size_t width = split(lines[0], ',').size();
  for (std::size_t i = 1; i < lines.size(); ++i) {
    auto f = split(lines[i], ',');
    if (f.size() != width) {
      ++r.malformed_rows;
      continue;
    }
    t.rows.push_back(std::move(f));
  }
  return t;
}

std::vector<std::string> need_files(const std::string& dir, const char* sub, const char* prefix, const char* suffix) {
  auto files = files_like((fs::path(dir) / sub).string(), prefix, suffix);
  if (files.empty()) throw InputError(fmt::format("{}: no {}/{}*{} ({})", dir, sub, prefix, suffix, kLayout));
  return files;
}

std::optional<std::int64_t> to_id(const std::string* s) {
  if (s == nullptr) return std::nullopt;
  if (auto v = to_int(*s)) return v;
  if (auto a = to_address(*s)) return static_cast<std::int64_t>(*a);
  return std::nullopt;
}

void read_calls(const std::string& path, MitosRecords& r) {
  const Table t = read_table(
      path, "the MPI records",
      {"rank", "func", "callsite", "t_start", "t_end", "buf", "count", "dtype_size", "peer", "comm", "request", "tag"}, r);
  for (const auto& row : t.rows) {
    const auto rank = to_int(*t.get(row, "rank")), peer = to_int(*t.get(row, "peer")), tag = to_int(*t.get(row, "tag"));
    const auto t0 = to_double(*t.get(row, "t_start")), t1 = to_double(*t.get(row, "t_end"));
    const auto site = to_address(*t.get(row, "callsite")), buf = to_address(*t.get(row, "buf"));
    const auto count = to_int(*t.get(row, "count")), size = to_int(*t.get(row, "dtype_size"));
    const auto comm = to_id(t.get(row, "comm")), req = to_id(t.get(row, "request"));
    const std::string& func = *t.get(row, "func");
    if (!rank || !peer || !tag || !t0 || !t1 || !site || !buf || !count || !size || !comm || !req || *rank < 0 ||
        !func.starts_with("MPI_") || *t1 < *t0) {
      ++r.malformed_rows;
      continue;
    }
    r.calls.push_back({static_cast<int>(*rank), func, *site, *t0 * 1e-9, *t1 * 1e-9, *buf, *count, *size, static_cast<int>(*peer),
                       static_cast<int>(*comm), static_cast<int>(*tag), *req});
  }
}

void read_samples(const std::string& path, MitosRecords& r) {
  const Table t = read_table(path, "the samples", {"addr", "latency", "level"}, r);
  for (const auto& row : t.rows) {
    const auto addr = to_address(*t.get(row, "addr"));
    const auto lat = to_int(*t.get(row, "latency"));
    int level = mitos_level(*t.get(row, "level"));
    if (!addr || !lat || *lat < 0) {
      ++r.malformed_rows;
      continue;
    }
    MitosSample s;
    s.addr = *addr;
    s.cycles = static_cast<std::uint64_t>(*lat);
    const std::string* hit = t.get(row, "hit_type");
    // A cache level that missed: served beyond the caches, a miss for the model.
    if (hit != nullptr && hit->find("Miss") != std::string::npos && level != 0 && level <= mitos_level("LFB"))
      level = mitos_level("Local RAM");
    s.level = level;
    const std::string* op = t.get(row, "op_type");
    s.prefetch = op != nullptr && op->find("fetch") != std::string::npos;  // "Prefetch", perf's "Pfetch"
    auto num = [&](const char* name) { return t.get(row, name) ? to_id(t.get(row, name)) : std::nullopt; };
    if (auto v = num("rank")) s.rank = static_cast<int>(*v);
    if (auto v = num("pid")) s.pid = *v;
    if (auto v = num("cpu")) s.cpu = static_cast<int>(*v);
    if (auto v = num("ip")) s.ip = static_cast<std::uint64_t>(*v);
    if (const std::string* tm = t.get(row, "time")) s.time = to_double(*tm).value_or(0) * 1e-9;
    r.samples.push_back(s);
  }
}

void read_papi(const std::string& path, MitosRecords& r) {
  const Table t = read_table(path, "the PAPI counters", {}, r);
  int row_index = 0;
  for (const auto& row : t.rows) {
    const std::string* rank_text = t.get(row, "rank");
    const auto rank = rank_text != nullptr ? to_int(*rank_text) : std::optional<std::int64_t>(row_index);
    if (!rank) {
      ++r.malformed_rows;
      continue;
    }
    ++row_index;
    for (const auto& [name, col] : t.column) {
      if (name == "rank") continue;
      if (const auto v = to_double(row[col])) r.counters[static_cast<int>(*rank)][name] = *v;
    }
  }
}

}  // namespace

MitosRecords read_mitoshooks(const std::string& dir) {
  MitosRecords r;
  r.variant = "mitoshooks";
  const fs::path root(dir);
  const std::string samples = (root / "data" / "samples.csv").string();
  if (!fs::is_regular_file(samples)) throw InputError(fmt::format("{}: no data/samples.csv ({})", dir, kLayout));
  if (!fs::is_regular_file(root / "hwdata" / "hwloc.xml"))
    throw InputError(fmt::format("{}: no hwdata/hwloc.xml ({})", dir, kLayout));
  const auto calls = need_files(dir, "data", "mpi", ".csv");
  const auto papi = need_files(dir, "data", "papi", ".csv");
  for (const auto& f : calls) read_calls(f, r);
  if (r.calls.empty()) throw InputError(fmt::format("{}: no MPI record parses in data/mpi*.csv", dir));
  read_samples(samples, r);
  for (const auto& f : papi) read_papi(f, r);
  return r;
}

std::string detect_mitos_variant(const std::string& dir) {
  const fs::path root(dir);
  if (!fs::is_directory(root)) throw InputError(fmt::format("{}: not a directory", dir));
  if (fs::exists(root / "data" / "samples.csv") || fs::exists(root / "data")) return "mitoshooks";
  if (fs::exists(root / "mpi_trace.csv") || fs::exists(root / "samples.csv")) return "simulator";
  throw InputError(
      fmt::format("{}: neither mitoshooks output (data/samples.csv, ...) nor a simulator run (samples.csv, "
                  "mpi_trace.csv, counters.csv)",
                  dir));
}

}  // namespace ripple::analysis
