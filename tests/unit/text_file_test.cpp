// Small text outputs are written whole or not at all: the text as given, an existing file emptied
// first, a path that cannot be opened an input error, a write the system refuses (a full device,
// a file-size limit met half-way) an error with its reason and no partial file left.
#include "ripple/common/text_file.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "ripple/common/error.hpp"

namespace ripple {
namespace {

namespace fs = std::filesystem;

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The message of what `write` throws, and whether it was an InputError (exit code 2).
template <class F>
std::pair<std::string, int> thrown(F&& write) {
  try {
    write();
  } catch (const Error& e) {
    return {e.what(), e.exit_code()};
  }
  return {"", 0};
}

class TextFile : public ::testing::Test {
protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("text-file-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    path_ = (root_ / "summary.json").string();
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
  std::string path_;
};

TEST_F(TextFile, WritesTheTextExactlyAndEmptiesAnEarlierLongerFile) {
  std::ofstream(path_) << std::string(10000, 'x');
  const std::string text = std::string("{\"a\": 1}\n") + std::string(70000, 'y') + '\0' + "end";  // beyond one write's buffer
  write_text_file(path_, text, "--json");
  EXPECT_EQ(contents(path_), text);
  write_text_file(path_, "", "--json");
  EXPECT_TRUE(fs::exists(path_));
  EXPECT_EQ(fs::file_size(path_), 0u);
}

TEST_F(TextFile, APathThatCannotBeOpenedIsAnInputErrorNamingItAndTheReason) {
  const std::string missing = (root_ / "no-such-dir" / "s.json").string();
  const auto [what, code] = thrown([&] { write_text_file(missing, "{}", "--summary"); });
  EXPECT_EQ(what, "--summary: cannot write '" + missing + "': No such file or directory");
  EXPECT_EQ(code, 2);
  const auto [dir_what, dir_code] = thrown([&] { write_text_file(root_.string(), "{}", "--json"); });
  EXPECT_NE(dir_what.find("Is a directory"), std::string::npos) << dir_what;
  EXPECT_EQ(dir_code, 2);
}

TEST_F(TextFile, AFullDeviceIsAnErrorWithItsReasonAndTheDeviceStays) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const auto [what, code] = thrown([&] { write_text_file("/dev/full", "{}\n", "--json"); });
  EXPECT_EQ(what, "--json: cannot write '/dev/full': No space left on device");
  EXPECT_EQ(code, 1);
  EXPECT_TRUE(fs::exists("/dev/full"));  // only a regular file is removed
}

TEST_F(TextFile, AWriteRefusedHalfWayLeavesNoPartialFile) {
  // A file-size limit of 4 KiB, met after the first 4 KiB of 64 KiB: the kernel writes up to the
  // limit, then refuses with EFBIG (SIGXFSZ ignored, as it would otherwise end the process).
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  if (old.rlim_max != RLIM_INFINITY && old.rlim_max < 4096) GTEST_SKIP() << "hard file-size limit below 4 KiB";
  rlimit small = old;
  small.rlim_cur = 4096;
  const auto handler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const auto [what, code] = thrown([&] { write_text_file(path_, std::string(65536, 'z'), "--json"); });
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, handler);
  EXPECT_EQ(what, "--json: cannot write '" + path_ + "': File too large");
  EXPECT_EQ(code, 1);
  EXPECT_FALSE(fs::exists(path_));
}

}  // namespace
}  // namespace ripple
