#pragma once
// Thin RAII layer over the HDF5 C API: one owner per id, one check macro for every return code.
// Serial and MPI-free (a parallel HDF5 build's own header may still bring <mpi.h>); the parallel
// file and the collective writes are in hdf5_parallel.hpp.
#include <hdf5.h>

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#define RIPPLE_H5_CHECK(call) ::ripple::detail::h5_check((call), #call, __FILE__, __LINE__)

namespace ripple {
namespace detail {
hid_t h5_check(hid_t id, const char* call, const char* file, int line);
}

// Owns one HDF5 identifier and closes it with the matching H5*close.
class H5Id {
public:
  H5Id() = default;
  explicit H5Id(hid_t id) : id_(id) {}
  H5Id(const H5Id&) = delete;
  H5Id& operator=(const H5Id&) = delete;
  H5Id(H5Id&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)) {}
  H5Id& operator=(H5Id&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
    }
    return *this;
  }
  ~H5Id() { reset(); }
  [[nodiscard]] hid_t get() const { return id_; }
  [[nodiscard]] explicit operator bool() const { return id_ != H5I_INVALID_HID; }
  // Gives up ownership (the caller closes it and checks the result).
  [[nodiscard]] hid_t release() { return std::exchange(id_, H5I_INVALID_HID); }
  void reset();

private:
  hid_t id_ = H5I_INVALID_HID;
};

// Attributes on any object; every rank must call these with the same values (metadata is collective).
// An existing attribute of the name is replaced.
void write_attribute(hid_t obj, const std::string& name, const std::string& value);
void write_attribute(hid_t obj, const std::string& name, std::int64_t value);
void write_attribute(hid_t obj, const std::string& name, double value);

// Attributes of files Ripple did not necessarily write: an InputError naming `path` when the
// attribute is missing or of another type. Strings may be fixed- or variable-length.
// Refuses (InputError) a path that is not a regular file, before HDF5 opens it: a FIFO would block
// the open for ever, a device never end; the system's reason (permission denied, no such file) is
// given rather than HDF5's "not an HDF5 file".
void require_regular_file(const std::string& path);
std::string read_string_attribute(hid_t obj, const char* name, const std::string& path);
std::int64_t read_int_attribute(hid_t obj, const char* name, const std::string& path);
double read_double_attribute(hid_t obj, const char* name, const std::string& path);

// A contiguous float64 dataset of the given shape.
H5Id create_dataset(hid_t file, const std::string& name, const std::vector<hsize_t>& shape);

// Ascending ids as runs (start, length) of consecutive ones: the selections of write_runs.
std::vector<std::pair<std::int64_t, std::int64_t>> id_runs(std::span<const std::int64_t> ids);

// A float64 dataset [rows, 0] that grows along its second dimension (set_extent), chunked
// [chunk_rows, chunk_columns] (an extendible dataset must be), with `fill` in every cell never written.
H5Id create_growing_dataset(hid_t file, const std::string& name, hsize_t rows, hsize_t chunk_rows, hsize_t chunk_columns,
                            double fill);

// Collective: the dataset's new dimensions, the same on every rank.
void set_extent(hid_t dataset, const std::vector<hsize_t>& dims);

}  // namespace ripple
