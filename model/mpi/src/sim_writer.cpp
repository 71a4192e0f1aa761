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

namespace {
namespace s = sim_schema;

H5Id open_dataset(hid_t file, const char* name) { return H5Id(RIPPLE_H5_CHECK(H5Dopen2(file, name, H5P_DEFAULT))); }
}  // namespace

SimWriter::SimWriter(MPI_Comm comm, const SimConfig& cfg, const Provenance& provenance, std::span<const std::int64_t> local_ids,
                     std::int64_t times, Mode mode, std::int64_t resume_row)
    : comm_(comm), runs_(id_runs(local_ids)), oscillators_(static_cast<hsize_t>(cfg.model.oscillators)) {
  if (cfg.output.iterations) local_ids_.assign(local_ids.begin(), local_ids.end());
  if (mode == Mode::Resume)
    open_for_resume(cfg, resume_row);
  else
    create(cfg, provenance, times, mode == Mode::Overwrite);
}

void SimWriter::open_for_resume(const SimConfig& cfg, std::int64_t resume_row) {
  const std::string& path = cfg.output.file;
  run_collectively(comm_, [&] {
    if (comm_rank(comm_) == 0) require_regular_file(path);
  });
  file_ = ParallelH5File::open(comm_, path);
  const hid_t root = file_.id();
  run_collectively(comm_, [&] {
    if (read_string_attribute(root, s::kSchemaAttr, path) != s::kSchema ||
        read_int_attribute(root, s::kVersionAttr, path) != s::kVersion)
      throw InputError(fmt::format("--resume: '{}' is not the output of this version of ripple sim", path));
    const std::string key =
        first_changed_key(read_string_attribute(root, s::kConfigAttr, path), cfg.resolved_toml, "output.flush_seconds");
    if (!key.empty()) throw InputError(fmt::format("--resume: {} differs from the configuration of the output '{}'", key, path));
    if (read_int_attribute(root, s::kStoredStatesAttr, path) < resume_row)
      throw InputError(fmt::format("--resume: '{}' holds fewer stored states than its checkpoint", path));
  });
  phase_ = open_dataset(root, s::kPhase);
  omega_ = open_dataset(root, s::kOmega);
  time_ = open_dataset(root, s::kTime);
  order_ = open_dataset(root, s::kOrderParameter);
  if (cfg.output.iterations) {
    iteration_end_ = open_dataset(root, s::kIterationEnd);
    H5Id space(RIPPLE_H5_CHECK(H5Dget_space(iteration_end_.get())));
    hsize_t dims[2] = {0, 0};
    RIPPLE_H5_CHECK(H5Sget_simple_extent_dims(space.get(), dims, nullptr));
    iteration_extent_ = static_cast<std::int64_t>(dims[1]);
    H5Id dcpl(RIPPLE_H5_CHECK(H5Dget_create_plist(iteration_end_.get())));
    hsize_t chunk[2] = {1, 1};
    RIPPLE_H5_CHECK(H5Pget_chunk(dcpl.get(), 2, chunk));
    chunk_columns_ = chunk[1];
  }
  first_pending_ = resume_row;
}

void SimWriter::create(const SimConfig& cfg, const Provenance& provenance, std::int64_t times, bool force) {
  const std::string& path = cfg.output.file;
  run_collectively(comm_, [&] {
    if (comm_rank(comm_) == 0 && !force && std::filesystem::exists(path))
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
  run_collectively(comm_, [&] { file_ = ParallelH5File::create(comm_, path, hdf5_file_bytes(data_bytes)); });
  const hid_t root = file_.id();
  write_attribute(root, s::kSchemaAttr, std::string(s::kSchema));
  write_attribute(root, s::kVersionAttr, static_cast<std::int64_t>(s::kVersion));
  write_attribute(root, s::kConfigAttr, cfg.resolved_toml);
  write_attribute(root, s::kOscillatorsAttr, cfg.model.oscillators);
  write_provenance(root, provenance);
  const hsize_t n = oscillators_;
  const auto t = static_cast<hsize_t>(times);
  phase_ = create_dataset(root, s::kPhase, {t, n});
  omega_ = create_dataset(root, s::kOmega, {n});
  time_ = create_dataset(root, s::kTime, {t});
  order_ = create_dataset(root, s::kOrderParameter, {t});
  write_attribute(phase_.get(), "units", std::string("rad"));
  write_attribute(omega_.get(), "units", std::string("rad/s"));
  write_attribute(time_.get(), "units", std::string("s"));
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
  }
  flush(0.0);  // from here on the file opens, and says it is incomplete
}

void SimWriter::write_omega(std::span<const double> local_omega) { write_runs(file_, omega_.get(), -1, runs_, local_omega); }

void SimWriter::write_phase(std::int64_t row, double time, double order_parameter, std::span<const double> local_phase) {
  write_runs(file_, phase_.get(), row, runs_, local_phase);
  RIPPLE_VERIFY(row == first_pending_ + static_cast<std::int64_t>(times_.size()), "SimWriter: rows out of order");
  times_.push_back(time);
  orders_.push_back(order_parameter);
}

void SimWriter::extend_iterations(std::int64_t columns) {
  if (columns <= iteration_extent_) return;  // a resumed run: the stopped one may have got further
  set_extent(iteration_end_.get(), {oscillators_, static_cast<hsize_t>(columns)});
  iteration_extent_ = columns;
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

void SimWriter::flush(double time_reached) {
  const bool root = comm_rank(comm_) == 0;
  const auto rows = static_cast<std::int64_t>(times_.size());
  const std::vector<std::pair<std::int64_t, std::int64_t>> pending{{first_pending_, rows}};
  const std::vector<std::pair<std::int64_t, std::int64_t>> none;
  write_runs(file_, time_.get(), -1, root ? pending : none, root ? std::span<const double>(times_) : std::span<const double>());
  write_runs(file_, order_.get(), -1, root ? pending : none, root ? std::span<const double>(orders_) : std::span<const double>());
  first_pending_ += rows;
  times_.clear();
  orders_.clear();
  const hid_t file = file_.id();
  write_attribute(file, s::kCompleteAttr, std::int64_t{0});
  write_attribute(file, s::kStoredStatesAttr, first_pending_);
  write_attribute(file, s::kTimeReachedAttr, time_reached);
  file_.flush();
}

void SimWriter::finish(double time_reached) {
  flush(time_reached);
  write_attribute(file_.id(), s::kCompleteAttr, std::int64_t{1});
  close();
}

void SimWriter::close() {
  phase_.reset();
  omega_.reset();
  time_.reset();
  order_.reset();
  iteration_end_.reset();
  file_.close();
}

}  // namespace ripple::model
