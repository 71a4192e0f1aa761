#pragma once
// Parallel HDF5 output of `ripple sim`: every rank writes its oscillators' columns collectively.
#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ripple/common/hdf5_file.hpp"
#include "ripple/common/provenance.hpp"
#include "ripple/model/config.hpp"

namespace ripple::model {

class SimWriter {
public:
  // Collective. Refuses an existing file unless `force`; creates /time, /phase, /omega, /order_parameter.
  SimWriter(MPI_Comm comm, const SimConfig& cfg, const Provenance& provenance, std::span<const std::int64_t> local_ids,
            std::int64_t times, bool force);
  void write_omega(std::span<const double> local_omega);
  void write_phase(std::int64_t row, double time, double order_parameter, std::span<const double> local_phase);
  // Writes /time and /order_parameter and closes the file. Collective.
  void finish();

private:
  MPI_Comm comm_;
  ParallelH5File file_;
  H5Id phase_, omega_, time_, order_;
  std::vector<std::pair<std::int64_t, std::int64_t>> runs_;  // this rank's columns as (start, length)
  std::vector<double> times_, orders_;
};

}  // namespace ripple::model
