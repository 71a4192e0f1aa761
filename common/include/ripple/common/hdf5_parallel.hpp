#pragma once
// Parallel HDF5: a file every rank of a communicator opens through MPI-IO, and the collective
// writes and reads of its datasets. The serial layer is hdf5_file.hpp.
#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ripple/common/hdf5_file.hpp"

namespace ripple {

// A file opened by every rank of `comm` through MPI-IO, written collectively.
class ParallelH5File {
public:
  // Creates `path` (truncating it). Collective. Rank 0 first looks at the path (hdf5_output_refused:
  // an InputError) and, with `reserve` > 0 on rank 0, reserves that many bytes for the file
  // (ripple/common/file_space.hpp: HDF5 1.10 cannot recover from a write that fails half-way: an
  // Error where the file system refuses them); every rank throws alike, rank 0 with the reason.
  static ParallelH5File create(MPI_Comm comm, const std::string& path, std::int64_t reserve = 0);
  // Opens an existing `path` for reading and writing. Collective; an InputError on every rank if
  // any cannot open it.
  static ParallelH5File open(MPI_Comm comm, const std::string& path);
  [[nodiscard]] hid_t id() const { return file_.get(); }
  // Data transfer property list for collective writes.
  [[nodiscard]] hid_t collective() const { return xfer_.get(); }
  // ... and for independent writes: each rank's error is its own (Open MPI 4.1's collective write
  // on three or more ranks reports success and whole counts even where a rank's write failed).
  [[nodiscard]] hid_t independent() const { return independent_.get(); }
  // Writes everything HDF5 holds for the file to it, metadata included, so that the file opens as it
  // is now if the process dies later. Collective; an Error if the file system refuses it.
  void flush();
  // Closes, collectively, after every object of the file was closed; throws if the data did not all
  // reach the file. A reservation's unused rest is given back.
  void close();

private:
  static H5Id access_list(MPI_Comm comm);
  void make_transfer_lists();

  H5Id file_;
  H5Id xfer_;
  H5Id independent_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::string path_;
  bool reserved_ = false;  // the same on every rank
};

// Collective write of one row `row` of a 2-D dataset [rows, n] (or the whole of a 1-D dataset when
// row < 0): this rank writes the elements at global columns given as (start, length) runs, taken in
// order from `values`. A rank with no runs still takes part.
void write_runs(const ParallelH5File& file, hid_t dataset, std::int64_t row,
                const std::vector<std::pair<std::int64_t, std::int64_t>>& runs, std::span<const double> values);

// Collective read, the mirror of write_runs.
void read_runs(const ParallelH5File& file, hid_t dataset, std::int64_t row,
               const std::vector<std::pair<std::int64_t, std::int64_t>>& runs, std::span<double> values);

// Collective write of the block [start, start + count) of an N-D dataset from `data` (row-major); a
// rank with an empty block still takes part.
void write_block(const ParallelH5File& file, hid_t dataset, const std::vector<hsize_t>& start, const std::vector<hsize_t>& count,
                 const double* data);

// A rectangle of a 2-D dataset: rows [row, row + rows) × columns [column, column + columns).
struct Rect2D {
  hsize_t row = 0;
  hsize_t rows = 0;
  hsize_t column = 0;
  hsize_t columns = 0;
};

// Collective write of this rank's rectangles of a 2-D dataset; they cover disjoint rows and come in
// increasing row order, and `values` holds them one after the other, each row-major. A rank with
// none still takes part. HDF5 1.10 combines the rectangles in time quadratic in their number: a few
// hundred per call are cheap, tens of thousands are not.
void write_rects(const ParallelH5File& file, hid_t dataset, const std::vector<Rect2D>& rects, std::span<const double> values);

// Collective write of single cells of a 2-D dataset: `cells` holds (row, column) pairs, `values` one
// value per pair. Each cell costs 1.6 to 2.5 µs (Open MPI 4.1, HDF5 1.10): for the odd cell, not bulk.
void write_cells(const ParallelH5File& file, hid_t dataset, const std::vector<hsize_t>& cells, std::span<const double> values);

}  // namespace ripple
