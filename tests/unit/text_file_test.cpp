// Small text outputs are written whole or not at all: the text as given, an existing file replaced
// (its mode kept, a link written through), a path that cannot be opened an input error, a write the
// system refuses (a full device, a file-size limit met half-way) an error with its reason, no
// partial file left and an earlier file as it was.
#include "ripple/common/text_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "ripple/common/error.hpp"
#include "scratch_dir.hpp"

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
  testing::ScratchDir scratch_{"text-file"};
  fs::path root_ = scratch_.path();
  std::string path_ = (root_ / "summary.json").string();
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
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full";
  const auto [what, code] = thrown([&] { write_text_file("/dev/full", "{}\n", "--json"); });
  EXPECT_EQ(what, "--json: cannot write '/dev/full': No space left on device");
  EXPECT_EQ(code, 1);
  EXPECT_TRUE(fs::exists("/dev/full"));  // only a regular file is removed
}

// 64 KiB written to `path` under a file-size limit of 4 KiB, met after the first 4 KiB: the kernel
// writes up to the limit, then refuses with EFBIG (SIGXFSZ ignored, as it would otherwise end the
// process). What write_text_file threw; false where the hard limit is below 4 KiB already.
bool refused_by_file_size_limit(const std::string& path, std::pair<std::string, int>& out) {
  rlimit old{};
  if (::getrlimit(RLIMIT_FSIZE, &old) != 0 || (old.rlim_max != RLIM_INFINITY && old.rlim_max < 4096)) return false;
  rlimit small = old;
  small.rlim_cur = 4096;
  const auto handler = std::signal(SIGXFSZ, SIG_IGN);
  if (::setrlimit(RLIMIT_FSIZE, &small) != 0) return false;
  out = thrown([&] { write_text_file(path, std::string(65536, 'z'), "--json"); });
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, handler);
  return true;
}

TEST_F(TextFile, AWriteRefusedHalfWayLeavesNoPartialFile) {
  std::pair<std::string, int> refused;
  if (!refused_by_file_size_limit(path_, refused)) GTEST_SKIP() << "hard file-size limit below 4 KiB";
  EXPECT_EQ(refused.first, "--json: cannot write '" + path_ + "': File too large");
  EXPECT_EQ(refused.second, 1);
  EXPECT_FALSE(fs::exists(path_));
}

// The same refusal with a file already there: it stays as it was (the text went to a temporary
// file beside it, which is gone too).
TEST_F(TextFile, AWriteRefusedHalfWayLeavesTheEarlierFileAsItWas) {
  std::ofstream(path_) << "{\"earlier\": true}\n";
  std::pair<std::string, int> refused;
  if (!refused_by_file_size_limit(path_, refused)) GTEST_SKIP() << "hard file-size limit below 4 KiB";
  EXPECT_EQ(refused.first, "--json: cannot write '" + path_ + "': File too large");
  EXPECT_EQ(contents(path_), "{\"earlier\": true}\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(root_), fs::directory_iterator()), 1);  // no temporary left
}

// A replaced file keeps its permissions; a link is written through (it stays a link, its target
// gets the text).
TEST_F(TextFile, AReplacedFileKeepsItsModeAndALinkIsWrittenThrough) {
  std::ofstream(path_) << "old";
  fs::permissions(path_, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_text_file(path_, "new\n", "--json");
  EXPECT_EQ(contents(path_), "new\n");
  EXPECT_EQ(fs::status(path_).permissions(), fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  const fs::path link = root_ / "latest.json";
  fs::create_symlink(path_, link);
  write_text_file(link.string(), "through\n", "--summary");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(contents(path_), "through\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(root_), fs::directory_iterator()), 2);
}

// finish_standard_output in a child whose standard output is `out` and whose standard error goes to
// `err`, after printing `text`: the child's exit code.
int finish_in_child(const char* out, const std::string& err, const std::string& text, int exit_code) {
  std::fflush(nullptr);  // nothing of the parent's buffers is written twice
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (e < 0 || ::dup2(e, 2) < 0 || std::freopen(out, "w", stdout) == nullptr) ::_exit(99);
    std::fputs(text.c_str(), stdout);
    ::_exit(finish_standard_output(exit_code));
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_F(TextFile, StandardOutputThatCannotBeWrittenTurnsSuccessIntoExitCode1) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no writable /dev/full";
  const std::string err = (root_ / "err.txt").string();
  EXPECT_EQ(finish_in_child("/dev/full", err, "{\"ranks\": 2}\n", 0), 1);  // pending at the end
  EXPECT_EQ(contents(err), "ripple: error: cannot write the standard output: No space left on device\n");
  EXPECT_EQ(finish_in_child("/dev/full", err, std::string(100000, 'x'), 0), 1);  // failed mid-way
  EXPECT_EQ(contents(err), "ripple: error: cannot write the standard output: a write to it failed\n");
  EXPECT_EQ(finish_in_child("/dev/full", err, "x", 2), 2);  // an earlier failure keeps its code
  EXPECT_EQ(finish_in_child("/dev/full", err, "", 0), 0);   // nothing to write: nothing failed
  EXPECT_EQ(contents(err), "");
  const std::string out = (root_ / "out.txt").string();
  EXPECT_EQ(finish_in_child(out.c_str(), err, "written\n", 0), 0);
  EXPECT_EQ(contents(out), "written\n");
  EXPECT_EQ(contents(err), "");
}

}  // namespace
}  // namespace ripple
