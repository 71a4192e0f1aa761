#include "ripple/model/mpi/sim_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <limits>

#include "ripple/common/error.hpp"
#include "ripple/common/file_space.hpp"
#include "ripple/common/mpi_util.hpp"
#include "ripple/model/sim_schema.hpp"

namespace ripple::model {

SimWriter::SimWriter(MPI_Comm comm, const SimConfig& cfg, const Provenance& provenance, std::span<const std::int64_t> local_ids,
                     std::int64_t times, bool force)
    : comm_(comm) {
  namespace s = sim_schema;
  const std::string& path = cfg.output.file;
  run_collectively(comm, [&] {
    if (comm_rank(comm) == 0 && !force && std::filesystem::exists(path))
      throw InputError(fmt::format("[output] file '{}' exists: pass --force to overwrite it or choose another name", path));
  });
  // The file's space is reserved before HDF5 writes (a full disk or a quota is then an error here, not
  // half-way through the run): the datasets below and the configuration.
  double data_bytes = 8.0 * (static_cast<double>(times) * static_cast<double>(cfg.model.oscillators + 2) +
                             static_cast<double>(cfg.model.oscillators)) +
                      static_cast<double>(cfg.resolved_toml.size());
  // K is known only at the end: the iterations of the mean period (a file that grows past its
  // reservation just takes more blocks then).
  if (cfg.output.iterations)
    data_bytes += 8.0 * static_cast<double>(cfg.model.oscillators) *
                  (cfg.solver.t_end / cfg.mean_period() * (1.0 + cfg.model.frequency_spread) + 2.0);
  run_collectively(comm, [&] { file_ = ParallelH5File::create(comm, path, hdf5_file_bytes(data_bytes)); });
  const hid_t root = file_.id();
  write_attribute(root, s::kSchemaAttr, std::string(s::kSchema));
  write_attribute(root, s::kVersionAttr, static_cast<std::int64_t>(s::kVersion));
  write_attribute(root, s::kConfigAttr, cfg.resolved_toml);
  write_attribute(root, s::kOscillatorsAttr, cfg.model.oscillators);
  write_provenance(root, provenance);
  const auto n = static_cast<hsize_t>(cfg.model.oscillators);
  const auto t = static_cast<hsize_t>(times);
  phase_ = create_dataset(root, s::kPhase, {t, n});
  omega_ = create_dataset(root, s::kOmega, {n});
  time_ = create_dataset(root, s::kTime, {t});
  order_ = create_dataset(root, s::kOrderParameter, {t});
  write_attribute(phase_.get(), "units", std::string("rad"));
  write_attribute(omega_.get(), "units", std::string("rad/s"));
  write_attribute(time_.get(), "units", std::string("s"));
  oscillators_ = n;
  if (cfg.output.iterations) {
    // Chunks of up to 2^20 rows (8 MiB: HDF5 fills a new chunk from a buffer of its size), one
    // column wide for large N, up to 2^16 cells for small N. The tracker writes one chunk column per
    // call: on Open MPI 4.1 with HDF5 1.10 a write that spans several chunk columns took 10 to
    // 200 ms per chunk and 190 MB of memory, one chunk column at a time 13 ms per 10^6 rows.
    const hsize_t chunk_rows = std::min<hsize_t>(n, hsize_t{1} << 20);
    chunk_columns_ = std::max<hsize_t>(1, (hsize_t{1} << 16) / chunk_rows);
    iteration_end_ =
        create_growing_dataset(root, s::kIterationEnd, n, chunk_rows, chunk_columns_, std::numeric_limits<double>::quiet_NaN());
    write_attribute(iteration_end_.get(), "units", std::string("s"));
    local_ids_.assign(local_ids.begin(), local_ids.end());
  }
  for (const std::int64_t id : local_ids) {
    if (!runs_.empty() && runs_.back().first + runs_.back().second == id)
      ++runs_.back().second;
    else
      runs_.emplace_back(id, 1);
  }
}

void SimWriter::write_omega(std::span<const double> local_omega) { write_runs(file_, omega_.get(), -1, runs_, local_omega); }

void SimWriter::write_phase(std::int64_t row, double time, double order_parameter, std::span<const double> local_phase) {
  write_runs(file_, phase_.get(), row, runs_, local_phase);
  times_.push_back(time);
  orders_.push_back(order_parameter);
}

void SimWriter::extend_iterations(std::int64_t columns) {
  set_extent(iteration_end_.get(), {oscillators_, static_cast<hsize_t>(columns)});
}

void SimWriter::write_iteration_columns(std::int64_t first_column, std::int64_t columns, std::span<const double> values) {
  rects_.clear();
  if (columns > 0)
    for (const auto& [start, length] : runs_)  // the rank's rows, as /phase's columns
      rects_.push_back({static_cast<hsize_t>(start), static_cast<hsize_t>(length), static_cast<hsize_t>(first_column),
                        static_cast<hsize_t>(columns)});
  write_rects(file_, iteration_end_.get(), rects_, columns > 0 ? values : std::span<const double>());
}

void SimWriter::write_iteration_cells(std::span<const CrossingLog::Cell> cells, std::span<const double> values) {
  cells_.clear();
  for (const CrossingLog::Cell& c : cells) {
    cells_.push_back(static_cast<hsize_t>(local_ids_[c.row]));
    cells_.push_back(static_cast<hsize_t>(c.column));
  }
  write_cells(file_, iteration_end_.get(), cells_, values);
}

void SimWriter::finish() {
  const bool root = comm_rank(comm_) == 0;
  const std::vector<std::pair<std::int64_t, std::int64_t>> all{{0, static_cast<std::int64_t>(times_.size())}};
  const std::vector<std::pair<std::int64_t, std::int64_t>> none;
  write_runs(file_, time_.get(), -1, root ? all : none, root ? std::span<const double>(times_) : std::span<const double>());
  write_runs(file_, order_.get(), -1, root ? all : none, root ? std::span<const double>(orders_) : std::span<const double>());
  phase_.reset();
  omega_.reset();
  time_.reset();
  order_.reset();
  iteration_end_.reset();
  file_.close();
}

}  // namespace ripple::model
