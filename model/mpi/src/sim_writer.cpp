#include "ripple/model/mpi/sim_writer.hpp"

#include <fmt/format.h>

#include <filesystem>

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
  const double data_bytes = 8.0 * (static_cast<double>(times) * static_cast<double>(cfg.model.oscillators + 2) +
                                   static_cast<double>(cfg.model.oscillators)) +
                            static_cast<double>(cfg.resolved_toml.size());
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
  file_.close();
}

}  // namespace ripple::model
