#include "ripple/common/hdf5_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ripple/common/error.hpp"
#include "ripple/common/file_space.hpp"

namespace ripple {
namespace detail {
hid_t h5_check(hid_t id, const char* call, const char* file, int line) {
  if (id < 0) throw Error(fmt::format("HDF5 call {} failed ({}:{})", call, file, line));
  return id;
}
}  // namespace detail

void H5Id::reset() {
  if (id_ < 0) return;
  switch (H5Iget_type(id_)) {
    case H5I_FILE:
      H5Fclose(id_);
      break;
    case H5I_GROUP:
      H5Gclose(id_);
      break;
    case H5I_DATASET:
      H5Dclose(id_);
      break;
    case H5I_DATASPACE:
      H5Sclose(id_);
      break;
    case H5I_DATATYPE:
      H5Tclose(id_);
      break;
    case H5I_ATTR:
      H5Aclose(id_);
      break;
    case H5I_GENPROP_LST:
      H5Pclose(id_);
      break;
    default:
      break;
  }
  id_ = H5I_INVALID_HID;
}

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
void write_attribute_raw(hid_t obj, const std::string& name, hid_t type, const void* value) {
  if (H5Aexists(obj, name.c_str()) > 0) {
    // Of the same type: written in place (flushes update their counts so, without churn in the
    // object header); otherwise replaced.
    H5Id old(RIPPLE_H5_CHECK(H5Aopen(obj, name.c_str(), H5P_DEFAULT)));
    H5Id old_type(RIPPLE_H5_CHECK(H5Aget_type(old.get())));
    if (H5Tequal(old_type.get(), type) > 0) {
      RIPPLE_H5_CHECK(H5Awrite(old.get(), type, value));
      return;
    }
    old.reset();
    RIPPLE_H5_CHECK(H5Adelete(obj, name.c_str()));
  }
  H5Id space(RIPPLE_H5_CHECK(H5Screate(H5S_SCALAR)));
  H5Id attr(RIPPLE_H5_CHECK(H5Acreate2(obj, name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT)));
  RIPPLE_H5_CHECK(H5Awrite(attr.get(), type, value));
}
}  // namespace

void write_attribute(hid_t obj, const std::string& name, const std::string& value) {
  H5Id type(RIPPLE_H5_CHECK(H5Tcopy(H5T_C_S1)));
  RIPPLE_H5_CHECK(H5Tset_size(type.get(), value.empty() ? 1 : value.size()));
  RIPPLE_H5_CHECK(H5Tset_cset(type.get(), H5T_CSET_UTF8));
  const char* data = value.empty() ? "" : value.c_str();
  write_attribute_raw(obj, name, type.get(), data);
}

void write_attribute(hid_t obj, const std::string& name, std::int64_t value) {
  write_attribute_raw(obj, name, H5T_NATIVE_INT64, &value);
}

void write_attribute(hid_t obj, const std::string& name, double value) {
  write_attribute_raw(obj, name, H5T_NATIVE_DOUBLE, &value);
}

namespace {
// An HDF5 call on a file being read, about its attribute `name`: a failure is the file's fault.
template <class Id>
Id attribute_call(Id id, const std::string& path, const char* name) {
  if (id < 0) throw InputError(fmt::format("{}: cannot read attribute '{}' (truncated or corrupted file?)", path, name));
  return id;
}
}  // namespace

// O_NONBLOCK: opening a FIFO returns at once.
void require_regular_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw InputError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  struct stat st {};
  const int rc = ::fstat(fd, &st);
  const int err = errno;
  ::close(fd);
  if (rc != 0) throw InputError(fmt::format("{}: cannot stat: {}", path, std::strerror(err)));
  if (!S_ISREG(st.st_mode))
    throw InputError(fmt::format("{}: not a regular file (a {}): give the file itself", path,
                                 S_ISDIR(st.st_mode)    ? "directory"
                                 : S_ISFIFO(st.st_mode) ? "FIFO"
                                 : S_ISSOCK(st.st_mode) ? "socket"
                                 : S_ISCHR(st.st_mode)  ? "character device"
                                 : S_ISBLK(st.st_mode)  ? "block device"
                                                        : "special file"));
}

namespace {
// An attribute that is absent (a foreign file) or whose object's header cannot be read (a damaged
// one: HDF5 fails instead of saying no).
void require_attribute(hid_t obj, const char* name, const std::string& path) {
  const htri_t exists = H5Aexists(obj, name);
  if (exists < 0) throw InputError(fmt::format("{}: attribute '{}' cannot be read: the file is damaged", path, name));
  if (exists == 0) throw InputError(fmt::format("{}: attribute '{}' is missing: not a Ripple file of this kind", path, name));
}
}  // namespace

std::string read_string_attribute(hid_t obj, const char* name, const std::string& path) {
  require_attribute(obj, name, path);
  H5Id attr(attribute_call(H5Aopen(obj, name, H5P_DEFAULT), path, name));
  H5Id type(attribute_call(H5Aget_type(attr.get()), path, name));
  H5Id space(attribute_call(H5Aget_space(attr.get()), path, name));
  if (H5Tget_class(type.get()) != H5T_STRING || H5Sget_simple_extent_type(space.get()) != H5S_SCALAR)
    throw InputError(fmt::format("{}: attribute '{}' is not a string", path, name));
  if (H5Tis_variable_str(type.get()) > 0) {
    char* text = nullptr;
    attribute_call(H5Aread(attr.get(), type.get(), &text), path, name);
    std::string value = text != nullptr ? text : "";
    H5free_memory(text);
    return value;
  }
  // The declared size, allocated below, must be what the file stores (a damaged type could claim gigabytes).
  if (H5Tget_size(type.get()) > H5Aget_storage_size(attr.get()))
    throw InputError(fmt::format("{}: attribute '{}' claims more bytes than it stores (corrupted?)", path, name));
  std::string value(H5Tget_size(type.get()), '\0');
  attribute_call(H5Aread(attr.get(), type.get(), value.data()), path, name);
  while (!value.empty() && value.back() == '\0') value.pop_back();
  return value;
}

std::int64_t read_int_attribute(hid_t obj, const char* name, const std::string& path) {
  require_attribute(obj, name, path);
  H5Id attr(attribute_call(H5Aopen(obj, name, H5P_DEFAULT), path, name));
  H5Id type(attribute_call(H5Aget_type(attr.get()), path, name));
  H5Id space(attribute_call(H5Aget_space(attr.get()), path, name));
  if (H5Tget_class(type.get()) != H5T_INTEGER || H5Sget_simple_extent_type(space.get()) != H5S_SCALAR)
    throw InputError(fmt::format("{}: attribute '{}' is not an integer", path, name));
  std::int64_t v = 0;
  attribute_call(H5Aread(attr.get(), H5T_NATIVE_INT64, &v), path, name);
  return v;
}

double read_double_attribute(hid_t obj, const char* name, const std::string& path) {
  if (H5Aexists(obj, name) <= 0) throw InputError(fmt::format("{}: attribute '{}' is missing", path, name));
  H5Id attr(attribute_call(H5Aopen(obj, name, H5P_DEFAULT), path, name));
  H5Id type(attribute_call(H5Aget_type(attr.get()), path, name));
  H5Id space(attribute_call(H5Aget_space(attr.get()), path, name));
  if (H5Tget_class(type.get()) != H5T_FLOAT || H5Sget_simple_extent_type(space.get()) != H5S_SCALAR)
    throw InputError(fmt::format("{}: attribute '{}' is not a number", path, name));
  double v = 0;
  attribute_call(H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &v), path, name);
  return v;
}

H5Id create_dataset(hid_t file, const std::string& name, const std::vector<hsize_t>& shape) {
  H5Id space(RIPPLE_H5_CHECK(H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr)));
  return H5Id(
      RIPPLE_H5_CHECK(H5Dcreate2(file, name.c_str(), H5T_NATIVE_DOUBLE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
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

std::vector<std::pair<std::int64_t, std::int64_t>> id_runs(std::span<const std::int64_t> ids) {
  std::vector<std::pair<std::int64_t, std::int64_t>> runs;
  for (const std::int64_t id : ids) {
    if (!runs.empty() && runs.back().first + runs.back().second == id)
      ++runs.back().second;
    else
      runs.emplace_back(id, 1);
  }
  return runs;
}

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

H5Id create_growing_dataset(hid_t file, const std::string& name, hsize_t rows, hsize_t chunk_rows, hsize_t chunk_columns,
                            double fill) {
  const hsize_t dims[2] = {rows, 0};
  const hsize_t max_dims[2] = {rows, H5S_UNLIMITED};
  const hsize_t chunk[2] = {chunk_rows, chunk_columns};
  H5Id space(RIPPLE_H5_CHECK(H5Screate_simple(2, dims, max_dims)));
  H5Id dcpl(RIPPLE_H5_CHECK(H5Pcreate(H5P_DATASET_CREATE)));
  RIPPLE_H5_CHECK(H5Pset_chunk(dcpl.get(), 2, chunk));
  RIPPLE_H5_CHECK(H5Pset_fill_value(dcpl.get(), H5T_NATIVE_DOUBLE, &fill));
  // Parallel HDF5 writes chunks only where they are allocated up front; new ones get the fill value
  // when the extent grows (collectively).
  RIPPLE_H5_CHECK(H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY));
  RIPPLE_H5_CHECK(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_ALLOC));
  return H5Id(
      RIPPLE_H5_CHECK(H5Dcreate2(file, name.c_str(), H5T_NATIVE_DOUBLE, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT)));
}

void set_extent(hid_t dataset, const std::vector<hsize_t>& dims) { RIPPLE_H5_CHECK(H5Dset_extent(dataset, dims.data())); }

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
