#include "ripple/common/hdf5_parallel.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ripple/common/error.hpp"
#include "ripple/common/file_space.hpp"

namespace ripple {

ParallelH5File ParallelH5File::create(MPI_Comm comm, const std::string& path, std::int64_t reserve) {
  ParallelH5File f;
  f.comm_ = comm;
  f.path_ = path;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Rank 0 looks at the path and reserves the space (its `reserve` counts); one verdict, broadcast,
  // so that every rank takes the same way below.
  std::string refused;
  SpaceCheck space;
  if (rank == 0) {
    refused = hdf5_output_refused(path);
    if (refused.empty() && reserve > 0) space = reserve_file_space(path, reserve, ExistingFile::Replace);
  }
  int verdict[3] = {refused.empty() ? 1 : 0, space.room ? 1 : 0, space.reserved ? 1 : 0};
  MPI_Bcast(verdict, 3, MPI_INT, 0, comm);
  if (verdict[0] == 0)
    throw InputError(rank == 0 ? fmt::format("cannot write HDF5 file '{}': {}", path, refused)
                               : fmt::format("cannot write HDF5 file '{}' (rank 0 says why)", path));
  if (verdict[1] == 0)
    throw Error(rank == 0 ? fmt::format("cannot write '{}': {}", path, space.reason)
                          : fmt::format("cannot write '{}': rank 0 could not reserve its space", path));
  f.reserved_ = verdict[2] != 0;
  const H5Id fapl = access_list(comm);
  // The MPI-IO driver empties only a file that is not empty: a reservation (size 0) survives it.
  const hid_t id = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
  if (id < 0) throw InputError(fmt::format("cannot create HDF5 file '{}': check the directory exists and is writable", path));
  f.file_ = H5Id(id);
  f.make_transfer_lists();
  return f;
}

void ParallelH5File::make_transfer_lists() {
  xfer_ = H5Id(RIPPLE_H5_CHECK(H5Pcreate(H5P_DATASET_XFER)));
  RIPPLE_H5_CHECK(H5Pset_dxpl_mpio(xfer_.get(), H5FD_MPIO_COLLECTIVE));
  independent_ = H5Id(RIPPLE_H5_CHECK(H5Pcreate(H5P_DATASET_XFER)));
  RIPPLE_H5_CHECK(H5Pset_dxpl_mpio(independent_.get(), H5FD_MPIO_INDEPENDENT));
}

H5Id ParallelH5File::access_list(MPI_Comm comm) {
  H5Id fapl(RIPPLE_H5_CHECK(H5Pcreate(H5P_FILE_ACCESS)));
  RIPPLE_H5_CHECK(H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL));
  // The 1.8 format stores attributes larger than 64 KiB (a configuration with per-oscillator arrays).
  RIPPLE_H5_CHECK(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST));
  // Silence HDF5's own stack printing: our checks report failures as one line.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  return fapl;
}

ParallelH5File ParallelH5File::open(MPI_Comm comm, const std::string& path) {
  ParallelH5File f;
  f.comm_ = comm;
  f.path_ = path;
  const H5Id fapl = access_list(comm);
  const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl.get());
  int ok = id >= 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
  if (ok == 0) {
    if (id >= 0) H5Fclose(id);
    throw InputError(fmt::format("cannot open HDF5 file '{}' for writing: missing, damaged or not HDF5", path));
  }
  f.file_ = H5Id(id);
  f.make_transfer_lists();
  return f;
}

void ParallelH5File::flush() {
  if (H5Fflush(file_.get(), H5F_SCOPE_GLOBAL) < 0) throw Error(fmt::format("cannot flush HDF5 file '{}' (disk full?)", path_));
}

void ParallelH5File::close() {
  xfer_.reset();
  independent_.reset();
  if (!file_) return;
  // Metadata (written by rank 0) reaches the file here: a full disk may show up now and on one rank
  // only, so callers agree on the outcome before they rely on the file. (A separate H5Fflush that
  // fails on one rank desynchronises the collective close: not used.) Every object of the file must
  // be closed before: MPI-IO files close "semi" strongly, and fail otherwise.
  // (HDF5 1.10 then keeps the file half torn down, and its own shutdown at MPI_Finalize may crash on
  // it: writers reserve the file's space before they start.)
  haddr_t written = 0;  // the end of what HDF5 allocated in the file, before the close adds metadata
  if (reserved_ && H5Fget_eoa(file_.get(), &written) < 0) written = 0;
  const bool closed = H5Fclose(file_.release()) >= 0;
  if (reserved_) {
    MPI_Barrier(comm_);  // every rank's data are in the file: what lies past its end is unused
    int rank = 0;
    MPI_Comm_rank(comm_, &rank);
    if (rank == 0) release_unused_space(path_, static_cast<std::int64_t>(written));
  }
  if (!closed) throw Error("cannot finish writing the HDF5 file (disk full, quota exceeded, or an object of it still open)");
}

namespace {
// The elements of row `row` of a 2-D dataset (or of a 1-D dataset, row < 0) at the given runs of
// columns; returns how many.
hsize_t select_runs(hid_t filespace, std::int64_t row, const std::vector<std::pair<std::int64_t, std::int64_t>>& runs) {
  const bool two_d = row >= 0;
  RIPPLE_H5_CHECK(H5Sselect_none(filespace));
  hsize_t total = 0;
  for (const auto& [start, length] : runs) {
    if (length <= 0) continue;
    hsize_t s2[2] = {static_cast<hsize_t>(row), static_cast<hsize_t>(start)};
    hsize_t c2[2] = {1, static_cast<hsize_t>(length)};
    hsize_t s1[1] = {static_cast<hsize_t>(start)};
    hsize_t c1[1] = {static_cast<hsize_t>(length)};
    RIPPLE_H5_CHECK(H5Sselect_hyperslab(filespace, H5S_SELECT_OR, two_d ? s2 : s1, nullptr, two_d ? c2 : c1, nullptr));
    total += static_cast<hsize_t>(length);
  }
  return total;
}
}  // namespace

void write_runs(const ParallelH5File& file, hid_t dataset, std::int64_t row,
                const std::vector<std::pair<std::int64_t, std::int64_t>>& runs, std::span<const double> values) {
  H5Id filespace(RIPPLE_H5_CHECK(H5Dget_space(dataset)));
  hsize_t total = select_runs(filespace.get(), row, runs);
  RIPPLE_VERIFY(total == values.size(), "write_runs: selection and value count differ");
  H5Id memspace(RIPPLE_H5_CHECK(H5Screate_simple(1, &total, nullptr)));
  if (total == 0) RIPPLE_H5_CHECK(H5Sselect_none(memspace.get()));
  RIPPLE_H5_CHECK(H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memspace.get(), filespace.get(), file.collective(), values.data()));
}

void read_runs(const ParallelH5File& file, hid_t dataset, std::int64_t row,
               const std::vector<std::pair<std::int64_t, std::int64_t>>& runs, std::span<double> values) {
  H5Id filespace(RIPPLE_H5_CHECK(H5Dget_space(dataset)));
  hsize_t total = select_runs(filespace.get(), row, runs);
  RIPPLE_VERIFY(total == values.size(), "read_runs: selection and value count differ");
  H5Id memspace(RIPPLE_H5_CHECK(H5Screate_simple(1, &total, nullptr)));
  if (total == 0) RIPPLE_H5_CHECK(H5Sselect_none(memspace.get()));
  RIPPLE_H5_CHECK(H5Dread(dataset, H5T_NATIVE_DOUBLE, memspace.get(), filespace.get(), file.collective(), values.data()));
}

void write_block(const ParallelH5File& file, hid_t dataset, const std::vector<hsize_t>& start, const std::vector<hsize_t>& count,
                 const double* data) {
  H5Id filespace(RIPPLE_H5_CHECK(H5Dget_space(dataset)));
  hsize_t total = 1;
  for (const hsize_t c : count) total *= c;
  if (total == 0)
    RIPPLE_H5_CHECK(H5Sselect_none(filespace.get()));
  else
    RIPPLE_H5_CHECK(H5Sselect_hyperslab(filespace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr));
  H5Id memspace(RIPPLE_H5_CHECK(H5Screate_simple(1, &total, nullptr)));
  if (total == 0) RIPPLE_H5_CHECK(H5Sselect_none(memspace.get()));
  RIPPLE_H5_CHECK(H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memspace.get(), filespace.get(), file.collective(), data));
}

void write_rects(const ParallelH5File& file, hid_t dataset, const std::vector<Rect2D>& rects, std::span<const double> values) {
  H5Id filespace(RIPPLE_H5_CHECK(H5Dget_space(dataset)));
  RIPPLE_H5_CHECK(H5Sselect_none(filespace.get()));
  hsize_t total = 0;
  for (const Rect2D& r : rects) {
    if (r.rows == 0 || r.columns == 0) continue;
    const hsize_t start[2] = {r.row, r.column};
    const hsize_t count[2] = {r.rows, r.columns};
    RIPPLE_H5_CHECK(H5Sselect_hyperslab(filespace.get(), H5S_SELECT_OR, start, nullptr, count, nullptr));
    total += r.rows * r.columns;
  }
  RIPPLE_VERIFY(total == values.size(), "write_rects: rectangles and value count differ");
  H5Id memspace(RIPPLE_H5_CHECK(H5Screate_simple(1, &total, nullptr)));
  if (total == 0) RIPPLE_H5_CHECK(H5Sselect_none(memspace.get()));
  RIPPLE_H5_CHECK(H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memspace.get(), filespace.get(), file.collective(), values.data()));
}

void write_cells(const ParallelH5File& file, hid_t dataset, const std::vector<hsize_t>& cells, std::span<const double> values) {
  RIPPLE_VERIFY(cells.size() == 2 * values.size(), "write_cells: cells and value count differ");
  H5Id filespace(RIPPLE_H5_CHECK(H5Dget_space(dataset)));
  hsize_t total = values.size();
  if (total == 0)
    RIPPLE_H5_CHECK(H5Sselect_none(filespace.get()));
  else
    RIPPLE_H5_CHECK(H5Sselect_elements(filespace.get(), H5S_SELECT_SET, total, cells.data()));
  H5Id memspace(RIPPLE_H5_CHECK(H5Screate_simple(1, &total, nullptr)));
  if (total == 0) RIPPLE_H5_CHECK(H5Sselect_none(memspace.get()));
  RIPPLE_H5_CHECK(H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memspace.get(), filespace.get(), file.collective(), values.data()));
}

}  // namespace ripple
