// The trace file's guard (tracer/src/trace_file_guard.hpp): while the tracer writes its file, a
// failed or short write to it is kept from HDF5 (answered as whole, its reason kept); later, this
// rank's independent writes are not made, its collective ones are made without data (so the other
// ranks are not left waiting in them), and set_size, sync and close are made and their failures
// kept from HDF5. Other files, and the file once unwatched, go through untouched.
#include "trace_file_guard.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>

namespace ripple::trace {
namespace {

class TraceFileGuard : public ::testing::Test {
protected:
  void SetUp() override {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    char name[256] = {};
    if (rank_ == 0) std::snprintf(name, sizeof name, "%s/guard-%d.bin", ::testing::TempDir().c_str(), ::getpid());
    MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
    path_ = name;
    ASSERT_EQ(MPI_File_open(MPI_COMM_WORLD, path_.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &file_), MPI_SUCCESS);
    ASSERT_EQ(MPI_File_open(MPI_COMM_WORLD, (path_ + ".other").c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &other_),
              MPI_SUCCESS);
  }
  void TearDown() override {
    unwatch_trace_file();
    MPI_File_close(&file_);
    MPI_File_close(&other_);
    if (rank_ == 0) {
      ::unlink(path_.c_str());
      ::unlink((path_ + ".other").c_str());
    }
    MPI_Barrier(MPI_COMM_WORLD);  // gone before the next test opens its own (each rank opens the path)
  }
  static MPI_Count bytes(MPI_Status& status) {
    MPI_Count n = -1;
    MPI_Get_elements_x(&status, MPI_BYTE, &n);
    return n;
  }
  // A write of 16 bytes to the watched file, through the guard, by `write`; counts the calls made
  // with data.
  int guarded_write(MPI_Status* status, const std::function<int(MPI_Status*, int)>& write, bool collective = false) {
    return trace_file_write(
        [&](MPI_Status* s, int n) {
          if (n > 0) ++calls_;
          return write(s, n);
        },
        status, 16, MPI_BYTE, collective);
  }
  // The file's size once every rank's writes are visible to all (MPI-IO: sync, barrier, sync).
  MPI_Offset visible_size() {
    MPI_File_sync(file_);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(file_);
    MPI_Offset size = -1;
    MPI_File_get_size(file_, &size);
    MPI_Barrier(MPI_COMM_WORLD);  // before another rank's next write, which need not wait for this one
    return size;
  }
  int write_own_part(MPI_Status* s, int n) {  // collective: 16 bytes at 16 * rank
    return PMPI_File_write_at_all(file_, 16 * rank_, data_, n, MPI_BYTE, s);
  }
  int rank_ = 0;
  std::string path_;
  MPI_File file_ = MPI_FILE_NULL, other_ = MPI_FILE_NULL;
  char data_[16] = "fifteen bytes!!";
  int calls_ = 0;
};

const auto kHalf = [](MPI_Status* s, int) {  // what Open MPI's MPI-IO does on a full disk: success, fewer bytes
  MPI_Status_set_elements(s, MPI_BYTE, 8);
  return MPI_SUCCESS;
};

TEST_F(TraceFileGuard, OnlyTheWatchedFileWhileWatched) {
  EXPECT_FALSE(is_trace_file(file_));
  watch_trace_file(file_);
  EXPECT_TRUE(is_trace_file(file_));
  EXPECT_FALSE(is_trace_file(other_));
  unwatch_trace_file();
  EXPECT_FALSE(is_trace_file(file_));
}

TEST_F(TraceFileGuard, AWholeWriteGoesThroughAsItIs) {
  watch_trace_file(file_);
  MPI_Status status;
  EXPECT_EQ(guarded_write(
                &status, [&](MPI_Status* s, int n) { return write_own_part(s, n); }, true),
            MPI_SUCCESS);
  EXPECT_EQ(bytes(status), 16);
  EXPECT_STREQ(trace_file_error(), "");
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  EXPECT_EQ(visible_size(), 16 * ranks);
}

TEST_F(TraceFileGuard, AShortWriteIsAnsweredWholeAndLaterIndependentWritesAreNotMade) {
  watch_trace_file(file_);
  MPI_Status status;
  EXPECT_EQ(guarded_write(&status, kHalf), MPI_SUCCESS);
  EXPECT_EQ(bytes(status), 16);  // HDF5 compares the bytes written with those it asked for
  EXPECT_NE(std::string(trace_file_error()).find("MPI-IO wrote 8 of 16 bytes: the file system took no more"), std::string::npos)
      << trace_file_error();
  EXPECT_EQ(guarded_write(MPI_STATUS_IGNORE, kHalf), MPI_SUCCESS);
  EXPECT_EQ(guarded_write(&status, kHalf), MPI_SUCCESS);
  EXPECT_EQ(bytes(status), 16);
  EXPECT_EQ(calls_, 1);                                                           // the later writes were not made
  EXPECT_NE(std::string(trace_file_error()).find("8 of 16"), std::string::npos);  // the first failure's reason stays
}

TEST_F(TraceFileGuard, AFailedWriteKeepsTheMpiErrorAndACauseErrnoNames) {
  watch_trace_file(file_);
  EXPECT_EQ(guarded_write(MPI_STATUS_IGNORE,
                          [](MPI_Status*, int) {
                            errno = ENOSPC;
                            return MPI_ERR_IO;
                          }),
            MPI_SUCCESS);
  const std::string why = trace_file_error();
  EXPECT_NE(why.find("MPI-IO failed ("), std::string::npos) << why;
  EXPECT_NE(why.find(std::strerror(ENOSPC)), std::string::npos) << why;
}

TEST_F(TraceFileGuard, AFailedCallWithoutACauseSaysOnlyWhatMpiSaid) {
  watch_trace_file(file_);
  EXPECT_EQ(trace_file_change([] {
              errno = 0;
              return MPI_ERR_ACCESS;
            }),
            MPI_SUCCESS);
  const std::string why = trace_file_error();
  EXPECT_EQ(why.find("MPI-IO failed ("), 0U) << why;
  EXPECT_EQ(why.find("file system"), std::string::npos) << why;
}

TEST_F(TraceFileGuard, SetSizeSyncAndCloseAreAlwaysMadeAndTheirFailureKeptFromHdf5) {
  watch_trace_file(file_);
  int made = 0;
  EXPECT_EQ(trace_file_change([&] {
              ++made;
              errno = EFBIG;
              return MPI_ERR_IO;
            }),
            MPI_SUCCESS);
  EXPECT_NE(std::string(trace_file_error()).find(std::strerror(EFBIG)), std::string::npos) << trace_file_error();
  EXPECT_EQ(guarded_write(MPI_STATUS_IGNORE, kHalf), MPI_SUCCESS);
  EXPECT_EQ(calls_, 0);  // discarding: the write is not made
  EXPECT_EQ(trace_file_change([&] { return ++made, MPI_ERR_IO; }), MPI_SUCCESS);
  EXPECT_EQ(made, 2);  // collective: made even while discarding
}

// A rank that discards (the last rank, after a failure of its own) still takes part in the
// collective writes, without data, so that the others complete theirs; its bytes are not written.
// (From three ranks on, Open MPI 4.1's collective writes exchange data: a rank that skipped one
// would leave the others waiting; at two they are independent writes.)
TEST_F(TraceFileGuard, ADiscardingRankTakesPartInCollectiveWritesWithoutData) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  watch_trace_file(file_);
  if (rank_ == ranks - 1) guarded_write(MPI_STATUS_IGNORE, kHalf);
  MPI_Status status;
  for (int k = 0; k < 3; ++k)
    EXPECT_EQ(guarded_write(
                  &status, [&](MPI_Status* s, int n) { return write_own_part(s, n); }, true),
              MPI_SUCCESS);
  EXPECT_EQ(bytes(status), 16);
  EXPECT_EQ(calls_, rank_ == ranks - 1 ? 1 : 3);
  EXPECT_EQ(visible_size(), 16 * (ranks - 1));  // every rank's 16 bytes but the discarding one's
}

TEST_F(TraceFileGuard, DiscardingAfterAFailureElsewhereKeepsNoReasonAndWritesNothing) {
  watch_trace_file(file_);
  discard_trace_file_writes();
  MPI_Status status;
  EXPECT_EQ(guarded_write(
                &status, [&](MPI_Status* s, int n) { return write_own_part(s, n); }, true),
            MPI_SUCCESS);
  EXPECT_EQ(calls_, 0);
  EXPECT_EQ(bytes(status), 16);
  EXPECT_STREQ(trace_file_error(), "");
  EXPECT_EQ(visible_size(), 0);
  // A new watch starts afresh: the file's writes are made.
  unwatch_trace_file();
  watch_trace_file(file_);
  EXPECT_EQ(guarded_write(
                &status, [&](MPI_Status* s, int n) { return write_own_part(s, n); }, true),
            MPI_SUCCESS);
  EXPECT_EQ(calls_, 1);
}

}  // namespace
}  // namespace ripple::trace
