// The spool directory rank 0 makes at MPI_Init: a fresh one with the run's mark; an earlier run's
// event spools moved aside, never deleted; leftovers without an event spool removed.
#include "spool_dir.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "scratch_dir.hpp"

namespace ripple::trace::detail {
namespace {

namespace fs = std::filesystem;

class SpoolDir : public ::testing::Test {
protected:
  static void touch(const fs::path& p, const std::string& text = "x") { std::ofstream(p) << text; }
  testing::ScratchDir scratch_{"spool-dir"};
  fs::path root_ = scratch_.path();
  std::string dir_ = (root_ / "run.h5.spool").string();
  int lock_ = -1;
  ~SpoolDir() override { release_spool_dir(dir_, lock_, false); }
};

TEST_F(SpoolDir, AFreshDirectoryHoldsTheMarkAndTheLockAndNothingElse) {
  std::string moved;
  ASSERT_EQ(make_spool_dir(dir_, "/.run-1", moved, lock_), 0);
  EXPECT_TRUE(moved.empty());
  EXPECT_GE(lock_, 0);
  EXPECT_TRUE(fs::is_regular_file(dir_ + "/.run-1"));
  EXPECT_TRUE(fs::is_regular_file(dir_ + kSpoolLockName));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 2);
  // Done with it: the lock file goes first, so that the directory can.
  fs::remove(dir_ + "/.run-1");
  release_spool_dir(dir_, lock_, true);
  EXPECT_EQ(lock_, -1);
  EXPECT_TRUE(fs::remove(dir_));
}

// A second run that traces to the same output while the first spools there (the same -o twice at
// once): refused (EBUSY), the first run's spools neither moved aside nor cleaned. Before, the second
// run moved the live directory aside, and the first wrote a trace without its events.
TEST_F(SpoolDir, ADirectoryALiveRunHoldsIsLeftAloneAndRefused) {
  std::string moved;
  ASSERT_EQ(make_spool_dir(dir_, "/.run-6", moved, lock_), 0);
  touch(dir_ + "/rank-000000.bin", "live events");
  touch(dir_ + "/rank-000000.clock", "live clock");
  int second = -1;
  std::string moved_too;
  EXPECT_EQ(make_spool_dir(dir_, "/.run-7", moved_too, second), EBUSY);
  EXPECT_EQ(second, -1);
  EXPECT_TRUE(moved_too.empty());
  EXPECT_FALSE(fs::exists(dir_ + ".1"));
  EXPECT_TRUE(fs::is_regular_file(dir_ + "/rank-000000.bin"));
  EXPECT_TRUE(fs::is_regular_file(dir_ + "/rank-000000.clock"));
  EXPECT_TRUE(fs::is_regular_file(dir_ + "/.run-6"));
  EXPECT_FALSE(fs::exists(dir_ + "/.run-7"));
  // Once the first run has let go (it died: its spools stay), they are an earlier run's, moved aside.
  release_spool_dir(dir_, lock_, false);
  ASSERT_EQ(make_spool_dir(dir_, "/.run-8", moved_too, lock_), 0);
  EXPECT_EQ(moved_too, dir_ + ".1");
  EXPECT_TRUE(fs::is_regular_file(dir_ + ".1/rank-000000.bin"));
  EXPECT_FALSE(fs::exists(dir_ + ".1" + kSpoolLockName));
  EXPECT_TRUE(fs::is_regular_file(dir_ + "/.run-8"));
}

TEST_F(SpoolDir, AnEarlierRunsEventSpoolsAreMovedAsideToTheFirstFreeNumberWhole) {
  fs::create_directories(dir_);
  touch(dir_ + "/rank-000000.bin", "earlier events");
  touch(dir_ + "/rank-000000.clock", "earlier clock");
  fs::create_directories(dir_ + ".1");  // an even earlier run, moved aside before
  touch(dir_ + ".1/rank-000000.bin", "older events");
  std::string moved;
  ASSERT_EQ(make_spool_dir(dir_, "/.run-2", moved, lock_), 0);
  EXPECT_EQ(moved, dir_ + ".2");
  std::ifstream events(dir_ + ".2/rank-000000.bin"), clock(dir_ + ".2/rank-000000.clock"), older(dir_ + ".1/rank-000000.bin");
  std::string a, b, c;
  std::getline(events, a);
  std::getline(clock, b);
  std::getline(older, c);
  EXPECT_EQ(a, "earlier events");
  EXPECT_EQ(b, "earlier clock");
  EXPECT_EQ(c, "older events");
  EXPECT_TRUE(fs::is_regular_file(dir_ + "/.run-2"));
  EXPECT_FALSE(fs::exists(dir_ + "/rank-000000.bin"));
}

// A name taken by something that is no directory (a file a user named so) is not free either: the
// next number is tried. Before, rename's ENOTDIR there failed the spool, and no rank recorded.
TEST_F(SpoolDir, AnEarlierRunIsMovedPastANumberTakenByAFile) {
  fs::create_directories(dir_);
  touch(dir_ + "/rank-000000.bin", "earlier events");
  touch(dir_ + ".1", "not a spool");
  std::string moved;
  ASSERT_EQ(make_spool_dir(dir_, "/.run-5", moved, lock_), 0);
  EXPECT_EQ(moved, dir_ + ".2");
  EXPECT_TRUE(fs::is_regular_file(dir_ + ".2/rank-000000.bin"));
  std::ifstream in(dir_ + ".1");
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "not a spool");
  EXPECT_TRUE(fs::is_regular_file(dir_ + "/.run-5"));
}

TEST_F(SpoolDir, ADirectoryWithoutEventSpoolsIsReusedWithoutItsLeftovers) {
  fs::create_directories(dir_ + "/rank-000001.samples");  // a directory in a file's place stays
  touch(dir_ + "/rank-000003.counters");
  touch(dir_ + "/rank-000002.placement");
  touch(dir_ + "/.run-old");   // a mark left by a run that died in MPI_Init
  touch(dir_ + "/notes.txt");  // not the tracer's
  std::string moved;
  ASSERT_EQ(make_spool_dir(dir_, "/.run-3", moved, lock_), 0);
  EXPECT_TRUE(moved.empty());
  EXPECT_FALSE(fs::exists(dir_ + "/rank-000003.counters"));
  EXPECT_FALSE(fs::exists(dir_ + "/rank-000002.placement"));
  EXPECT_FALSE(fs::exists(dir_ + "/.run-old"));
  EXPECT_TRUE(fs::is_directory(dir_ + "/rank-000001.samples"));
  EXPECT_TRUE(fs::exists(dir_ + "/notes.txt"));
  EXPECT_TRUE(fs::is_regular_file(dir_ + "/.run-3"));
}

TEST_F(SpoolDir, AFileInTheDirectorysPlaceFailsWithErrnoAndIsLeftAlone) {
  touch(dir_, "in the way");
  std::string moved;
  EXPECT_EQ(make_spool_dir(dir_, "/.run-4", moved, lock_), ENOTDIR);
  EXPECT_TRUE(fs::is_regular_file(dir_));
  EXPECT_TRUE(moved.empty());
}

}  // namespace
}  // namespace ripple::trace::detail
