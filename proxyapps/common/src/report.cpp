#include "ripple/proxy/report.hpp"

#include <fmt/format.h>

#include <bit>
#include <nlohmann/json.hpp>

#include "ripple/common/error.hpp"
#include "ripple/common/file_space.hpp"
#include "ripple/common/mpi_util.hpp"
#include "ripple/common/provenance.hpp"
#include "ripple/common/text_file.hpp"

namespace ripple::proxy {
namespace {
// SplitMix64 finaliser: a well-mixed 64-bit hash.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
}  // namespace

void Checksum::add(std::uint64_t global_index, double value) {
  sum_ += mix(mix(global_index) ^ std::bit_cast<std::uint64_t>(value));
}

std::uint64_t Checksum::global(MPI_Comm comm) const {
  std::uint64_t total = sum_;  // unsigned addition wraps: the sum is order-independent
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_UINT64_T, MPI_SUM, comm));
  return total;
}

void write_result_file(MPI_Comm comm, const std::string& path, const std::string& schema, int argc, char** argv,
                       double data_bytes, const std::function<void(const ParallelH5File&)>& write) {
  ParallelH5File f;
  // The space first: a disk that fills during the write would otherwise leave zeros where a rank's
  // block belongs, unseen (Open MPI 4.1's collective write reports success on three or more ranks).
  run_collectively(comm, [&] { f = ParallelH5File::create(comm, path, hdf5_file_bytes(data_bytes)); });
  abort_on_error(comm, [&] {
    write_attribute(f.id(), "schema", schema);
    write_attribute(f.id(), "schema_version", std::int64_t{1});
    write_provenance(f.id(), collect_provenance(comm, argc, argv));
    write(f);
    f.close();
  });
}

std::string hex(std::uint64_t v) { return fmt::format("{:016x}", v); }

// JSON through nlohmann::json, the project's one way (a byte that is not UTF-8 becomes U+FFFD).
std::string json_string(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string json_number(double v) { return std::isfinite(v) ? fmt::format("{:.17g}", v) : "null"; }

std::string sleep_phase_json(const CommonOptions& o, double seconds) {
  return o.work == WorkMode::Sleep ? json_number(seconds) : "null";
}

void write_summary(MPI_Comm comm, const std::string& path, const std::vector<std::pair<std::string, std::string>>& fields,
                   const IterationTimes& times) {
  const int ranks = comm_size(comm);
  const int rank = comm_rank(comm);
  const auto n = static_cast<int>(times.compute.size());
  std::vector<double> mine;
  for (int k = 0; k < n; ++k) {
    mine.push_back(times.compute[static_cast<std::size_t>(k)]);
    mine.push_back(times.comm[static_cast<std::size_t>(k)]);
    mine.push_back(times.end[static_cast<std::size_t>(k)]);
  }
  std::vector<double> all(rank == 0 ? mine.size() * static_cast<std::size_t>(ranks) : 0);
  RIPPLE_MPI_CHECK(MPI_Gather(mine.data(), 3 * n, MPI_DOUBLE, all.data(), 3 * n, MPI_DOUBLE, 0, comm));
  run_collectively(comm, [&] {
    if (rank != 0 || path.empty()) return;
    // Each field's value is a JSON text (json_string, json_number, ...): parsed, so that the file
    // is valid JSON whatever an app passes, and written by nlohmann::json.
    nlohmann::ordered_json out;
    for (const auto& [key, value] : fields) out[key] = nlohmann::ordered_json::parse(value);
    nlohmann::ordered_json timings = nlohmann::ordered_json::array();
    for (int r = 0; r < ranks; ++r) {
      nlohmann::ordered_json row{{"rank", r},
                                 {"compute", nlohmann::ordered_json::array()},
                                 {"comm", nlohmann::ordered_json::array()},
                                 {"end", nlohmann::ordered_json::array()}};
      for (int k = 0; k < n; ++k) {
        const std::size_t at = (static_cast<std::size_t>(r) * static_cast<std::size_t>(n) + static_cast<std::size_t>(k)) * 3;
        row["compute"].push_back(all[at]);
        row["comm"].push_back(all[at + 1]);
        row["end"].push_back(all[at + 2]);
      }
      timings.push_back(std::move(row));
    }
    out["timings"] = std::move(timings);
    write_text_file(path, out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n", "--json");
  });
}

}  // namespace ripple::proxy
