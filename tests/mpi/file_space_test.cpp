// ParallelH5File::create's reservation is still the file's while every rank writes it (HDF5's MPI-IO
// driver empties only a file that is not empty already), the data come back, and the closed file
// holds about what it uses; a reservation the file system refuses is an error on every rank.
#include "ripple/common/file_space.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ripple/common/error.hpp"
#include "ripple/common/hdf5_parallel.hpp"

namespace ripple {
namespace {

std::int64_t allocated_bytes(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::int64_t>(st.st_blocks) * 512 : -1;
}

TEST(FileSpaceParallel, AReservationOutlivesTheCollectiveCreateAndWriteAndTheRestIsGivenBack) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  char name[256] = {};
  if (rank == 0) std::snprintf(name, sizeof name, "%s/reserved-%d.h5", ::testing::TempDir().c_str(), ::getpid());
  MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
  const std::string path = name;
  constexpr std::int64_t kReserved = 64 << 20;
  int can_reserve = 0;  // whether this file system reserves at all, asked of a file of its own
  if (rank == 0) {
    const std::string probe = path + ".probe";
    can_reserve = reserve_file_space(probe, kReserved, ExistingFile::Replace).reserved ? 1 : 0;
    ::unlink(probe.c_str());
  }
  MPI_Bcast(&can_reserve, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (can_reserve == 0) GTEST_SKIP() << "the file system under " << ::testing::TempDir() << " cannot reserve blocks";

  constexpr hsize_t kPerRank = 1 << 17;  // 1 MiB of doubles per rank
  std::vector<double> mine(kPerRank);
  for (hsize_t k = 0; k < kPerRank; ++k) mine[k] = static_cast<double>(rank) * 1e6 + static_cast<double>(k);
  {
    ParallelH5File file = ParallelH5File::create(MPI_COMM_WORLD, path, kReserved);
    if (rank == 0) {
      EXPECT_GE(allocated_bytes(path), kReserved) << "HDF5's create gave the reservation away";
    }
    H5Id ds = create_dataset(file.id(), "/x", {static_cast<hsize_t>(ranks) * kPerRank});
    write_block(file, ds.get(), {static_cast<hsize_t>(rank) * kPerRank}, {kPerRank}, mine.data());
    ds.reset();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      EXPECT_GE(allocated_bytes(path), kReserved) << "the writes gave the reservation away";
    }
    file.close();
  }
  if (rank == 0) {
    const std::int64_t data = static_cast<std::int64_t>(ranks) * static_cast<std::int64_t>(kPerRank * sizeof(double));
    EXPECT_GE(allocated_bytes(path), data);
    EXPECT_LT(allocated_bytes(path), data + (2 << 20)) << "the unused reservation was not given back";
    H5Id f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    ASSERT_GE(f.get(), 0);
    H5Id ds(H5Dopen2(f.get(), "/x", H5P_DEFAULT));
    std::vector<double> all(static_cast<std::size_t>(ranks) * kPerRank);
    ASSERT_GE(H5Dread(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, all.data()), 0);
    for (int r = 0; r < ranks; ++r)
      for (hsize_t k = 0; k < kPerRank; k += 4099)
        ASSERT_EQ(all[static_cast<std::size_t>(r) * kPerRank + k], static_cast<double>(r) * 1e6 + static_cast<double>(k));
    ::unlink(path.c_str());
  }
}

TEST(FileSpaceParallel, ASpaceTheFileSystemRefusesIsAnErrorOnEveryRankAndLeavesNoFile) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char name[256] = {};
  if (rank == 0) std::snprintf(name, sizeof name, "%s/refused-%d.h5", ::testing::TempDir().c_str(), ::getpid());
  MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
  std::string what;
  try {
    ParallelH5File::create(MPI_COMM_WORLD, name, std::int64_t{1} << 60);  // 1 EiB
  } catch (const Error& e) {
    what = e.what();
  }
  EXPECT_NE(what.find(std::string("cannot write '") + name + "'"), std::string::npos) << what;
  if (rank == 0) {
    EXPECT_NE(what.find("the file system refuses it"), std::string::npos) << what;
  }
  if (rank == 0) {
    EXPECT_NE(::access(name, F_OK), 0);
  }
}

}  // namespace
}  // namespace ripple
