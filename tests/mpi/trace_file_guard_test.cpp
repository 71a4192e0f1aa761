// The trace file's guard (tracer/src/trace_file_guard.hpp): while the tracer writes its file, a
// failed or short write to it is kept from HDF5 (answered as whole, its reason kept), and every
// later change to the file is answered as done without being made; other files, and the file once
// unwatched, go through untouched.
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
    path_ = ::testing::TempDir() + "/guard-" + std::to_string(::getpid()) + ".bin";
    ASSERT_EQ(MPI_File_open(MPI_COMM_SELF, path_.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &file_), MPI_SUCCESS);
    ASSERT_EQ(MPI_File_open(MPI_COMM_SELF, (path_ + ".other").c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &other_),
              MPI_SUCCESS);
  }
  void TearDown() override {
    unwatch_trace_file();
    MPI_File_close(&file_);
    MPI_File_close(&other_);
    ::unlink(path_.c_str());
    ::unlink((path_ + ".other").c_str());
  }
  static int elements(MPI_Status& status, MPI_Datatype type) {
    int n = -1;
    MPI_Get_count(&status, type, &n);
    return n;
  }
  // A write of 16 bytes to the watched file, through the guard, by `write`; counts its calls.
  int guarded_write(MPI_Status* status, const std::function<int(MPI_Status*)>& write) {
    return trace_file_write(
        [&](MPI_Status* s) {
          ++calls_;
          return write(s);
        },
        status, 16, MPI_BYTE);
  }
  std::string path_;
  MPI_File file_ = MPI_FILE_NULL, other_ = MPI_FILE_NULL;
  char data_[16] = "fifteen bytes!!";
  int calls_ = 0;
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
  EXPECT_EQ(guarded_write(&status, [&](MPI_Status* s) { return PMPI_File_write_at(file_, 0, data_, 16, MPI_BYTE, s); }),
            MPI_SUCCESS);
  EXPECT_EQ(elements(status, MPI_BYTE), 16);
  EXPECT_STREQ(trace_file_error(), "");
  MPI_Offset size = 0;
  MPI_File_get_size(file_, &size);
  EXPECT_EQ(size, 16);
}

TEST_F(TraceFileGuard, AShortWriteIsAnsweredWholeAndLaterChangesAreNotMade) {
  watch_trace_file(file_);
  MPI_Status status;
  const auto half = [&](MPI_Status* s) {  // what Open MPI's MPI-IO does on a full disk: success, fewer bytes
    MPI_Status_set_elements(s, MPI_BYTE, 8);
    return MPI_SUCCESS;
  };
  EXPECT_EQ(guarded_write(&status, half), MPI_SUCCESS);
  EXPECT_EQ(elements(status, MPI_BYTE), 16);  // HDF5 compares the bytes written with those it asked for
  EXPECT_NE(std::string(trace_file_error()).find("MPI-IO wrote 8 of 16 bytes"), std::string::npos) << trace_file_error();
  EXPECT_EQ(guarded_write(MPI_STATUS_IGNORE, half), MPI_SUCCESS);
  EXPECT_EQ(guarded_write(&status, half), MPI_SUCCESS);
  EXPECT_EQ(elements(status, MPI_BYTE), 16);
  EXPECT_EQ(calls_, 1);  // the later writes were not made
  bool changed = false;
  EXPECT_EQ(trace_file_change([&] { return changed = true, MPI_ERR_IO; }), MPI_SUCCESS);
  EXPECT_FALSE(changed);
  EXPECT_NE(std::string(trace_file_error()).find("8 of 16"), std::string::npos);  // the first failure's reason stays
}

TEST_F(TraceFileGuard, AFailedWriteKeepsTheMpiErrorAndACauseErrnoNames) {
  watch_trace_file(file_);
  EXPECT_EQ(guarded_write(MPI_STATUS_IGNORE,
                          [](MPI_Status*) {
                            errno = ENOSPC;
                            return MPI_ERR_IO;
                          }),
            MPI_SUCCESS);
  const std::string why = trace_file_error();
  EXPECT_NE(why.find("MPI-IO failed ("), std::string::npos) << why;
  EXPECT_NE(why.find(std::strerror(ENOSPC)), std::string::npos) << why;
}

TEST_F(TraceFileGuard, AFailedChangeStartsDiscardingToo) {
  watch_trace_file(file_);
  EXPECT_EQ(trace_file_change([] {
              errno = EFBIG;
              return MPI_ERR_IO;
            }),
            MPI_SUCCESS);
  EXPECT_NE(std::string(trace_file_error()).find(std::strerror(EFBIG)), std::string::npos) << trace_file_error();
  EXPECT_EQ(guarded_write(MPI_STATUS_IGNORE, [](MPI_Status*) { return MPI_SUCCESS; }), MPI_SUCCESS);
  EXPECT_EQ(calls_, 0);
}

TEST_F(TraceFileGuard, DiscardingAfterAFailureElsewhereKeepsNoReasonAndWritesNothing) {
  watch_trace_file(file_);
  discard_trace_file_writes();
  MPI_Status status;
  EXPECT_EQ(guarded_write(&status, [&](MPI_Status* s) { return PMPI_File_write_at(file_, 0, data_, 16, MPI_BYTE, s); }),
            MPI_SUCCESS);
  EXPECT_EQ(calls_, 0);
  EXPECT_EQ(elements(status, MPI_BYTE), 16);
  EXPECT_STREQ(trace_file_error(), "");
  MPI_Offset size = -1;
  MPI_File_get_size(file_, &size);
  EXPECT_EQ(size, 0);
  // A new watch starts afresh: the next file's writes are made.
  unwatch_trace_file();
  watch_trace_file(file_);
  EXPECT_EQ(guarded_write(&status, [&](MPI_Status* s) { return PMPI_File_write_at(file_, 0, data_, 16, MPI_BYTE, s); }),
            MPI_SUCCESS);
  EXPECT_EQ(calls_, 1);
}

}  // namespace
}  // namespace ripple::trace
