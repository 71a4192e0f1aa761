#include "agreed_write.hpp"

#include <cstdint>
#include <string>

namespace ripple::trace::detail {

void h5_agreed(bool ok, const char* call) {
  agreed([&] {
    if (!ok) throw Error(std::string("HDF5 call ") + call + " failed on rank " + std::to_string(g_state->rank));
  });
}

hid_t h5_agreed_id(hid_t id, const char* call) {
  try {
    h5_agreed(id >= 0, call);
  } catch (const AgreedError&) {
    if (id >= 0) H5Id{id}.reset();
    throw;
  }
  return id;
}

H5Id create_table(const ParallelH5File& file, const char* name, hid_t type, std::int64_t rows, hsize_t width) {
  const hsize_t dims[2] = {static_cast<hsize_t>(rows), width};
  H5Id space;
  agreed([&] { space = H5Id(RIPPLE_H5_CHECK(H5Screate_simple(width > 0 ? 2 : 1, dims, nullptr))); });
  return H5Id(RIPPLE_H5_AGREED_ID(H5Dcreate2(file.id(), name, type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
}

void write_slice(const ParallelH5File& file, hid_t ds, hid_t type, hsize_t start, hsize_t count, const void* data,
                 hsize_t width) {
  static const std::uint64_t nothing = 0;
  H5Id space, mem;
  bool empty = false;  // a dataset without elements, on every rank alike
  agreed([&] {
    space = H5Id(RIPPLE_H5_CHECK(H5Dget_space(ds)));
    empty = H5Sget_simple_extent_npoints(space.get()) == 0;
    if (empty) return;
    const hsize_t at[2] = {start, 0}, rows[2] = {count, width};
    if (count == 0)
      RIPPLE_H5_CHECK(H5Sselect_none(space.get()));
    else
      RIPPLE_H5_CHECK(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, at, nullptr, rows, nullptr));
    const hsize_t elements = count * std::max<hsize_t>(width, 1);
    mem = H5Id(RIPPLE_H5_CHECK(H5Screate_simple(1, &elements, nullptr)));
    if (count == 0) RIPPLE_H5_CHECK(H5Sselect_none(mem.get()));
  });
  if (empty) return;
  // Independent: every rank writes one contiguous slice, and sees its own write's failure (Open MPI
  // 4.1's collective write on three or more ranks reports every rank's write whole, even one that
  // failed: the trace would have lost rows unseen).
  RIPPLE_H5_AGREED(H5Dwrite(ds, type, mem.get(), space.get(), file.independent(), data != nullptr ? data : &nothing));
}

void write_per_rank(const ParallelH5File& file, const char* name, hid_t type, const void* value, int rank, int ranks) {
  const H5Id ds = create_table(file, name, type, ranks);
  write_slice(file, ds.get(), type, static_cast<hsize_t>(rank), 1, value);
}

RankSlice rank_slice(std::int64_t rows, int rank) {
  RankSlice r;
  PMPI_Exscan(&rows, &r.offset, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) r.offset = 0;  // Exscan leaves rank 0's result undefined
  PMPI_Allreduce(&rows, &r.total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return r;
}

std::string rank0_string(std::string v) {
  int n = static_cast<int>(v.size());
  PMPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  v.resize(static_cast<std::size_t>(n));
  PMPI_Bcast(v.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD);
  return v;
}

}  // namespace ripple::trace::detail
