// Reserving a file's blocks before it is written: the blocks are the file's while its size stays as
// it was, a file system that cannot hold them says so, and what the written file does not use is
// given back. Blocks are read from stat(2), the file system's own account.
#include "ripple/common/file_space.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "scratch_dir.hpp"

namespace ripple {
namespace {

namespace fs = std::filesystem;

std::int64_t allocated_bytes(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return static_cast<std::int64_t>(st.st_blocks) * 512;
}

class FileSpace : public ::testing::Test {
protected:
  testing::ScratchDir scratch_{"file-space"};
  fs::path root_ = scratch_.path();
  std::string path_ = (root_ / "out.h5").string();
};

constexpr std::int64_t kMiB = 1 << 20;

TEST_F(FileSpace, AReplacedFileIsEmptiedAndHoldsTheBlocksAtSizeZeroUntilTheUnusedAreGivenBack) {
  std::ofstream(path_) << std::string(100000, 'x');  // an earlier run's output
  const SpaceCheck check = reserve_file_space(path_, 16 * kMiB, ExistingFile::Replace);
  ASSERT_TRUE(check.room) << check.reason;
  if (!check.reserved) GTEST_SKIP() << "the file system under " << root_ << " cannot reserve blocks";
  EXPECT_EQ(fs::file_size(path_), 0U);
  EXPECT_GE(allocated_bytes(path_), 16 * kMiB);
  {
    std::ofstream out(path_, std::ios::binary | std::ios::in | std::ios::out);  // writes into the reservation
    out << std::string(static_cast<std::size_t>(kMiB), 'y');
  }
  EXPECT_GE(allocated_bytes(path_), 16 * kMiB);  // still held past the end
  release_unused_space(path_);
  EXPECT_EQ(fs::file_size(path_), static_cast<std::uintmax_t>(kMiB));
  EXPECT_GE(allocated_bytes(path_), kMiB);
  EXPECT_LT(allocated_bytes(path_), 2 * kMiB);
  std::ifstream in(path_, std::ios::binary);
  const std::string back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(back, std::string(static_cast<std::size_t>(kMiB), 'y'));
}

TEST_F(FileSpace, ANewFileTakesTheModeTheUmaskLeaves) {  // as HDF5's own create would (0666 less the umask)
  const mode_t old = ::umask(002);
  const SpaceCheck check = reserve_file_space(path_, kMiB, ExistingFile::Replace);
  ::umask(old);
  ASSERT_TRUE(check.room) << check.reason;
  struct stat st {};
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0664U);
}

TEST_F(FileSpace, AStaleShortSizeIsNeverCut) {
  const SpaceCheck check = reserve_file_space(path_, 4 * kMiB, ExistingFile::Replace);
  ASSERT_TRUE(check.room) << check.reason;
  if (!check.reserved) GTEST_SKIP() << "the file system under " << root_ << " cannot reserve blocks";
  std::ofstream(path_, std::ios::binary | std::ios::in | std::ios::out) << std::string(1000, 'z');
  release_unused_space(path_, 5000);  // the writer knows of 5000 bytes: this size must be stale
  EXPECT_GE(allocated_bytes(path_), 4 * kMiB);
  release_unused_space(path_, 1000);
  EXPECT_LT(allocated_bytes(path_), kMiB);
  EXPECT_EQ(fs::file_size(path_), 1000U);
}

TEST_F(FileSpace, KeepLeavesWhatTheFileHolds) {
  std::ofstream(path_) << "header";
  const SpaceCheck check = reserve_file_space(path_, 4 * kMiB, ExistingFile::Keep);
  ASSERT_TRUE(check.room) << check.reason;
  if (check.reserved) {
    EXPECT_GE(allocated_bytes(path_), 4 * kMiB);
  }
  std::ifstream in(path_);
  std::string text;
  in >> text;
  EXPECT_EQ(text, "header");
}

TEST_F(FileSpace, MoreThanTheFileSystemCanHoldIsRefusedWithTheReasonAndTheReplacedFileRemoved) {
  std::ofstream(path_) << "old";
  const SpaceCheck check = reserve_file_space(path_, std::int64_t{1} << 60, ExistingFile::Replace);  // 1 EiB
  EXPECT_FALSE(check.room);
  EXPECT_FALSE(check.reserved);
  EXPECT_NE(check.reason.find("1099511627776.0 MiB"), std::string::npos) << check.reason;
  EXPECT_FALSE(fs::exists(path_));
}

volatile std::sig_atomic_t g_size_signals = 0;
void count_size_signal(int) { g_size_signals = g_size_signals + 1; }

TEST_F(FileSpace, AFileSizeLimitBelowTheBytesIsRefusedBeforeAnyBlockIsAskedFor) {
  std::ofstream(path_) << "old";
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit small = old;
  small.rlim_cur = 64 * 1024;
  const auto handler = std::signal(SIGXFSZ, count_size_signal);  // a reservation beyond the limit would raise it
  g_size_signals = 0;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string limited = file_size_limit_refuses(kMiB);
  const bool within = file_size_limit_refuses(32 * 1024).empty();
  const SpaceCheck check = reserve_file_space(path_, kMiB, ExistingFile::Replace);
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, handler);
  EXPECT_NE(limited.find("beyond 64 KiB (ulimit -f); it needs about 1.0 MiB"), std::string::npos) << limited;
  EXPECT_TRUE(within);
  EXPECT_FALSE(check.room);
  EXPECT_EQ(check.reason, limited);
  EXPECT_EQ(g_size_signals, 0);
  EXPECT_TRUE(fs::exists(path_));  // refused before it was emptied
}

TEST_F(FileSpace, OnlyARegularFileIsRemoved) {
  std::ofstream(path_) << "failed output";
  const std::string link = (root_ / "link.h5").string(), dir = (root_ / "dir.h5").string();
  fs::create_symlink(path_, link);
  fs::create_directory(dir);
  remove_regular_file(link);
  remove_regular_file(dir);
  remove_regular_file("/dev/null");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_TRUE(fs::exists("/dev/null"));
  remove_regular_file(path_);
  EXPECT_FALSE(fs::exists(path_));
}

TEST_F(FileSpace, AnOutputPathIsRefusedWithWhyWhereNoHdf5FileCanBeWrittenThere) {
  EXPECT_EQ(hdf5_output_refused(path_), "");  // new, in a writable directory
  std::ofstream(path_) << "an earlier file";
  EXPECT_EQ(hdf5_output_refused(path_), "");  // replaced
  EXPECT_EQ(hdf5_output_refused(root_.string()), "it is a directory");
  const std::string to_dir = (root_ / "to-dir").string(), to_file = (root_ / "to-file").string();
  fs::create_symlink(root_, to_dir);
  fs::create_symlink(path_, to_file);
  EXPECT_EQ(hdf5_output_refused(to_dir), "it is a directory");  // judged by what it points to
  EXPECT_EQ(hdf5_output_refused(to_file), "");
  if (fs::exists("/dev/null")) {
    EXPECT_EQ(hdf5_output_refused("/dev/null"), "it is not a regular file, as an HDF5 file must be");
  }
  const std::string missing = (root_ / "no-such-dir").string();
  EXPECT_EQ(hdf5_output_refused(missing + "/out.h5"), "its directory '" + missing + "' does not exist");
  EXPECT_EQ(hdf5_output_refused(path_ + "/out.h5"), "'" + path_ + "' is not a directory");
  EXPECT_EQ(hdf5_output_refused("/out.h5").find("does not exist"), std::string::npos);  // its directory is /
  if (::geteuid() != 0) {                                                               // root may write anywhere
    const fs::path locked = root_ / "locked";
    fs::create_directories(locked);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_EQ(hdf5_output_refused((locked / "out.h5").string()), "its directory '" + locked.string() + "' is not writable");
    fs::permissions(locked, fs::perms::owner_all);
  }
}

TEST_F(FileSpace, APathThatIsNotARegularFileIsLeftToTheWriter) {
  const SpaceCheck check = reserve_file_space("/dev/null", 4 * kMiB, ExistingFile::Replace);
  EXPECT_TRUE(check.room);
  EXPECT_FALSE(check.reserved);
  EXPECT_TRUE(fs::exists("/dev/null"));
  const SpaceCheck missing = reserve_file_space((root_ / "no-such-dir" / "x.h5").string(), kMiB, ExistingFile::Replace);
  EXPECT_TRUE(missing.room);  // the writer's own create says why it cannot
  EXPECT_FALSE(missing.reserved);
}

}  // namespace
}  // namespace ripple
