#pragma once
// Parallel HDF5 output of `ripple sim`: every rank writes its oscillators' columns collectively.
#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ripple/common/hdf5_parallel.hpp"
#include "ripple/common/provenance.hpp"
#include "ripple/model/config.hpp"
#include "ripple/model/crossing_log.hpp"

namespace ripple::model {

class SimWriter {
public:
  enum class Mode { Create, Overwrite, Resume };
  // Collective. Create refuses an existing file, Overwrite replaces it; both create /time, /phase,
  // /omega, /order_parameter, and with `[output] iterations` an empty /iteration_end. Resume opens
  // the file a run of the same configuration (the first key that differs is named) left, to go on
  // from stored state `resume_row` (an InputError on every rank before anything is written).
  SimWriter(MPI_Comm comm, const SimConfig& cfg, const Provenance& provenance, std::span<const std::int64_t> local_ids,
            std::int64_t times, Mode mode, std::int64_t resume_row = 0);
  void write_omega(std::span<const double> local_omega);
  void write_phase(std::int64_t row, double time, double order_parameter, std::span<const double> local_phase);
  // /iteration_end [N, K]: K grows with the run, so it is written in pieces (CrossingTracker).
  // Collective: `columns` columns, the new ones NaN until written.
  void extend_iterations(std::int64_t columns);
  // Its chunks' width: a write that stays in one chunk column is fast (sim_writer.cpp).
  [[nodiscard]] std::int64_t iteration_chunk_columns() const { return static_cast<std::int64_t>(chunk_columns_); }
  // Collective: columns [first_column, first_column + columns) of this rank's rows, `values`
  // row-major (rows in local order); columns = 0: takes part without data.
  void write_iteration_columns(std::int64_t first_column, std::int64_t columns, std::span<const double> values);
  // Collective: single cells (local row, column) of /iteration_end.
  void write_iteration_cells(std::span<const CrossingLog::Cell> cells, std::span<const double> values);
  // Writes the pending /time and /order_parameter values, says how far the run got (`complete` 0,
  // `stored_states`, `time_reached`) and flushes the file: it opens as it is now if the process
  // dies later. Collective.
  void flush(double time_reached);
  // Flushes with `complete` 1 and closes the file. Collective.
  void finish(double time_reached);
  // Closes the file as it is (after a flush). Collective.
  void close();

private:
  void create(const SimConfig& cfg, const Provenance& provenance, std::int64_t times, bool force);
  void open_for_resume(const SimConfig& cfg, std::int64_t resume_row);

  MPI_Comm comm_;
  ParallelH5File file_;
  H5Id phase_, omega_, time_, order_, iteration_end_;
  std::vector<std::pair<std::int64_t, std::int64_t>> runs_;  // this rank's columns as (start, length)
  hsize_t oscillators_ = 0;
  std::vector<std::int64_t> local_ids_;  // with iterations: the global row of each local row
  hsize_t chunk_columns_ = 1;            // /iteration_end's chunks: columns per chunk
  std::vector<Rect2D> rects_;            // scratch of write_iteration_*
  std::vector<hsize_t> cells_;
  std::int64_t iteration_extent_ = 0;   // /iteration_end's columns in the file
  std::int64_t first_pending_ = 0;      // the row of times_[0] and orders_[0]
  std::vector<double> times_, orders_;  // stored since the last flush
};

}  // namespace ripple::model
