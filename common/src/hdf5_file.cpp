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

}  // namespace ripple
