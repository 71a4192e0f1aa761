// Reading spools back against byte-exact files written here: whole records from the data offset
// on, in rounds of any size, a record cut off at the end noted and never returned, a missing file
// refused.
#include "spool_reader.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace ripple::trace::detail {
namespace {

struct Record {
  std::uint64_t key = 0;
  double value = 0;
  std::int32_t tag = 0;
  std::int32_t pad = 0;
};

std::string temp_path(const char* name) { return ::testing::TempDir() + "/" + name + std::to_string(::getpid()); }

// A file of `header` bytes of 0xAB, then records 0..n-1, then `tail` bytes of a further record.
void write_file(const std::string& path, std::size_t header, int n, std::size_t tail) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << std::string(header, '\xAB');
  for (int k = 0; k < n; ++k) {
    const Record r{static_cast<std::uint64_t>(k) * 7919u, 0.5 * k, -k, 0};
    out.write(reinterpret_cast<const char*>(&r), sizeof r);
  }
  const Record extra{1, 2, 3, 4};
  out.write(reinterpret_cast<const char*>(&extra), static_cast<std::streamsize>(tail));
}

void expect_numbered(const Record* r, std::size_t n, int first) {
  for (std::size_t k = 0; k < n; ++k) {
    const int i = first + static_cast<int>(k);
    ASSERT_EQ(r[k].key, static_cast<std::uint64_t>(i) * 7919u) << i;
    ASSERT_EQ(r[k].value, 0.5 * i) << i;
    ASSERT_EQ(r[k].tag, -i) << i;
  }
}

TEST(SpoolRecords, ReadsWholeRecordsFromTheDataOffsetInRoundsOfAnySize) {
  const std::string path = temp_path("spool_reader_rounds");
  write_file(path, 37, 1000, 0);
  SpoolRecords in;
  ASSERT_TRUE(in.open(path, 37, sizeof(Record)));
  EXPECT_EQ(in.records(), 1000);
  std::vector<Record> chunk(300);
  int done = 0;
  for (const std::size_t want : {300u, 1u, 299u, 300u}) {
    const std::size_t got = in.read(chunk.data(), want);
    const std::size_t expected = std::min<std::size_t>(want, static_cast<std::size_t>(1000 - done));
    ASSERT_EQ(got, expected);
    expect_numbered(chunk.data(), got, done);
    done += static_cast<int>(got);
  }
  EXPECT_EQ(done, 900);
  EXPECT_EQ(in.read(chunk.data(), 300), 100u);  // only what is left
  expect_numbered(chunk.data(), 100, 900);
  EXPECT_EQ(in.read(chunk.data(), 300), 0u);
  EXPECT_FALSE(in.cut_off());
  ::unlink(path.c_str());
}

TEST(SpoolRecords, ACutOffLastRecordIsNotedAndNeverReturned) {
  const std::string path = temp_path("spool_reader_cut");
  write_file(path, 16, 5, sizeof(Record) - 3);
  SpoolRecords in;
  ASSERT_TRUE(in.open(path, 16, sizeof(Record)));
  EXPECT_EQ(in.records(), 5);
  std::vector<Record> all(8);
  EXPECT_EQ(in.read(all.data(), 8), 5u);
  expect_numbered(all.data(), 5, 0);
  EXPECT_TRUE(in.cut_off());

  bool cut = false;
  const std::vector<Record> whole = read_all_records<Record>(path, 16, &cut);
  ASSERT_EQ(whole.size(), 5u);
  expect_numbered(whole.data(), 5, 0);
  EXPECT_TRUE(cut);
  ::unlink(path.c_str());
}

TEST(SpoolRecords, AFileShorterThanItsHeaderHasNoRecordsAndAMissingOneIsRefused) {
  const std::string path = temp_path("spool_reader_short");
  write_file(path, 10, 0, 0);
  SpoolRecords in;
  ASSERT_TRUE(in.open(path, 64, sizeof(Record)));
  EXPECT_EQ(in.records(), 0);
  Record r;
  EXPECT_EQ(in.read(&r, 1), 0u);
  ::unlink(path.c_str());
  EXPECT_FALSE(in.open(path, 0, sizeof(Record)));
  EXPECT_EQ(in.read(&r, 1), 0u);
  bool cut = true;
  EXPECT_TRUE(read_all_records<Record>(path, 0, &cut).empty());
  EXPECT_FALSE(cut);
}

}  // namespace
}  // namespace ripple::trace::detail
