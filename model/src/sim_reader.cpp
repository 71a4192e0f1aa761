#include "ripple/model/sim_reader.hpp"

#include <fmt/format.h>
#include <hdf5.h>

#include "ripple/common/error.hpp"
#include "ripple/common/hdf5_file.hpp"
#include "ripple/model/sim_schema.hpp"

namespace ripple::model {
namespace {

// Opens a float64 dataset and gives its shape.
H5Id open_float64(hid_t file, const char* name, const std::string& path, std::vector<hsize_t>& dims) {
  if (H5Lexists(file, name, H5P_DEFAULT) <= 0) throw InputError(fmt::format("{}: dataset {} is missing", path, name));
  H5Id ds(RIPPLE_H5_CHECK(H5Dopen2(file, name, H5P_DEFAULT)));
  H5Id type(RIPPLE_H5_CHECK(H5Dget_type(ds.get())));
  if (H5Tget_class(type.get()) != H5T_FLOAT || H5Tget_size(type.get()) != 8)
    throw InputError(fmt::format("{}: dataset {} is not float64", path, name));
  H5Id space(RIPPLE_H5_CHECK(H5Dget_space(ds.get())));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  dims.assign(static_cast<size_t>(std::max(rank, 0)), 0);
  if (rank >= 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  return ds;
}

// Opens a float64 dataset and checks its shape.
H5Id open_checked(hid_t file, const char* name, const std::vector<hsize_t>& shape, const std::string& path) {
  std::vector<hsize_t> dims;
  H5Id ds = open_float64(file, name, path, dims);
  if (dims != shape) throw InputError(fmt::format("{}: dataset {} has an unexpected shape", path, name));
  return ds;
}

}  // namespace

SimReader::SimReader(const std::string& path) : path_(path) {
  namespace s = sim_schema;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  require_regular_file(path);
  if (H5Fis_hdf5(path.c_str()) <= 0) throw InputError(fmt::format("{}: not an HDF5 file (truncated or corrupted?)", path));
  file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file_ < 0) throw InputError(fmt::format("{}: cannot open", path));
  try {
    if (read_string_attribute(file_, s::kSchemaAttr, path) != s::kSchema)
      throw InputError(fmt::format("{}: not a {} file", path, s::kSchema));
    const std::int64_t version = read_int_attribute(file_, s::kVersionAttr, path);
    if (version < s::kOldestVersion || version > s::kVersion)
      throw InputError(fmt::format("{}: schema_version {} but this reader reads versions {} to {}", path, version,
                                   s::kOldestVersion, s::kVersion));
    n_ = read_int_attribute(file_, s::kOscillatorsAttr, path);
    if (n_ <= 0) throw InputError(fmt::format("{}: oscillators = {} is not positive", path, n_));
    // /time fixes the number of stored states; the other datasets must agree with it.
    if (H5Lexists(file_, s::kTime, H5P_DEFAULT) <= 0) throw InputError(fmt::format("{}: dataset {} is missing", path, s::kTime));
    H5Id tds(RIPPLE_H5_CHECK(H5Dopen2(file_, s::kTime, H5P_DEFAULT)));
    H5Id space(RIPPLE_H5_CHECK(H5Dget_space(tds.get())));
    hsize_t t = 0;
    if (H5Sget_simple_extent_ndims(space.get()) != 1) throw InputError(fmt::format("{}: /time is not 1-D", path));
    H5Sget_simple_extent_dims(space.get(), &t, nullptr);
    t_ = static_cast<std::int64_t>(t);
    open_checked(file_, s::kTime, {t}, path);
    open_checked(file_, s::kPhase, {t, static_cast<hsize_t>(n_)}, path);
    open_checked(file_, s::kOmega, {static_cast<hsize_t>(n_)}, path);
    open_checked(file_, s::kOrderParameter, {t}, path);
    if (version >= 2 && H5Lexists(file_, s::kIterationEnd, H5P_DEFAULT) > 0) {
      std::vector<hsize_t> dims;
      open_float64(file_, s::kIterationEnd, path, dims);
      if (dims.size() != 2 || dims[0] != static_cast<hsize_t>(n_))
        throw InputError(fmt::format("{}: dataset {} is not [oscillators, iterations]", path, s::kIterationEnd));
      has_iteration_end_ = true;
      k_ = static_cast<std::int64_t>(dims[1]);
    }
  } catch (...) {
    H5Fclose(file_);
    throw;
  }
}

SimReader::~SimReader() {
  if (file_ >= 0) H5Fclose(file_);
}

std::vector<double> SimReader::read_1d(const char* name, std::int64_t expected) const {
  H5Id ds = open_checked(file_, name, {static_cast<hsize_t>(expected)}, path_);
  std::vector<double> v(static_cast<size_t>(expected));
  RIPPLE_H5_CHECK(H5Dread(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()));
  return v;
}

std::vector<double> SimReader::time() const { return read_1d(sim_schema::kTime, t_); }
std::vector<double> SimReader::omega() const { return read_1d(sim_schema::kOmega, n_); }
std::vector<double> SimReader::order_parameter() const { return read_1d(sim_schema::kOrderParameter, t_); }

std::vector<double> SimReader::phase_row(std::int64_t k) const {
  if (k < 0 || k >= t_) throw InputError(fmt::format("{}: row {} out of range [0, {})", path_, k, t_));
  H5Id ds = open_checked(file_, sim_schema::kPhase, {static_cast<hsize_t>(t_), static_cast<hsize_t>(n_)}, path_);
  H5Id fs(RIPPLE_H5_CHECK(H5Dget_space(ds.get())));
  const hsize_t start[2] = {static_cast<hsize_t>(k), 0};
  const hsize_t count[2] = {1, static_cast<hsize_t>(n_)};
  RIPPLE_H5_CHECK(H5Sselect_hyperslab(fs.get(), H5S_SELECT_SET, start, nullptr, count, nullptr));
  H5Id ms(RIPPLE_H5_CHECK(H5Screate_simple(2, count, nullptr)));
  std::vector<double> v(static_cast<size_t>(n_));
  RIPPLE_H5_CHECK(H5Dread(ds.get(), H5T_NATIVE_DOUBLE, ms.get(), fs.get(), H5P_DEFAULT, v.data()));
  return v;
}

std::vector<double> SimReader::phases() const {
  H5Id ds = open_checked(file_, sim_schema::kPhase, {static_cast<hsize_t>(t_), static_cast<hsize_t>(n_)}, path_);
  std::vector<double> v(static_cast<size_t>(t_ * n_));
  RIPPLE_H5_CHECK(H5Dread(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()));
  return v;
}

std::vector<double> SimReader::iteration_end() const { return iteration_end_rows(0, n_); }

std::vector<double> SimReader::iteration_end_rows(std::int64_t first, std::int64_t count) const {
  if (!has_iteration_end_)
    throw InputError(fmt::format("{}: no {} (the run had [output] iterations = false)", path_, sim_schema::kIterationEnd));
  if (first < 0 || count < 0 || first + count > n_)
    throw InputError(fmt::format("{}: rows [{}, {}) out of range [0, {})", path_, first, first + count, n_));
  H5Id ds = open_checked(file_, sim_schema::kIterationEnd, {static_cast<hsize_t>(n_), static_cast<hsize_t>(k_)}, path_);
  std::vector<double> v(static_cast<size_t>(count * k_));
  if (v.empty()) return v;
  H5Id fs(RIPPLE_H5_CHECK(H5Dget_space(ds.get())));
  const hsize_t start[2] = {static_cast<hsize_t>(first), 0};
  const hsize_t extent[2] = {static_cast<hsize_t>(count), static_cast<hsize_t>(k_)};
  RIPPLE_H5_CHECK(H5Sselect_hyperslab(fs.get(), H5S_SELECT_SET, start, nullptr, extent, nullptr));
  H5Id ms(RIPPLE_H5_CHECK(H5Screate_simple(2, extent, nullptr)));
  RIPPLE_H5_CHECK(H5Dread(ds.get(), H5T_NATIVE_DOUBLE, ms.get(), fs.get(), H5P_DEFAULT, v.data()));
  return v;
}

std::string SimReader::config() const { return read_string_attribute(file_, sim_schema::kConfigAttr, path_); }

}  // namespace ripple::model
