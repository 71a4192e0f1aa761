// Reading spools back against byte-exact files written here: whole records from the data offset
// on, in rounds of any size, a record cut off at the end noted and never returned, a missing file
// refused, a FIFO refused without blocking; the event blocks in order, with a block that
// never reached the disk, a damaged or repeated one, or one cut off at the end skipped and its
// events counted.
#include "spool_reader.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
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

// A FIFO named like a spool (no writer ever opens it) is refused at once: opening it blocked
// `recover` for ever. So is a directory.
TEST(SpoolRecords, AFifoOrADirectoryIsRefusedWithoutBlocking) {
  const std::string path = temp_path("spool_reader_fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  SpoolRecords in;
  EXPECT_FALSE(in.open(path, 0, sizeof(Record)));
  EXPECT_TRUE(read_all_records<Record>(path, 0).empty());
  SpoolHeader header;
  header.stream_count = 1;
  EXPECT_EQ(read_stream_count(path, header, 4096), -1);
  ::unlink(path.c_str());
  EXPECT_FALSE(in.open(::testing::TempDir(), 0, sizeof(Record)));
}

// Events 0..n-1 with a few changing fields, and their blocks as the event spool writes them.
std::vector<Event> numbered_events(std::size_t n) {
  std::vector<Event> events(n);
  for (std::size_t k = 0; k < n; ++k) {
    events[k].call = static_cast<std::int32_t>(k % 5);
    events[k].request = static_cast<std::int64_t>(k);
    events[k].tag = static_cast<std::int32_t>(k % 17);
    events[k].t_enter = static_cast<double>(10 * k);
    events[k].t_exit = static_cast<double>(10 * k + 3);
  }
  return events;
}

std::vector<std::vector<unsigned char>> blocks_of(const std::vector<Event>& events) {
  EventBlockEncoder encoder;
  std::vector<std::vector<unsigned char>> blocks;
  for (std::uint64_t k = 0; k < events.size();) {
    blocks.emplace_back(kEventBlock);
    k += encoder.encode(events.data(), ~std::uint64_t{0}, k, events.size(), k, blocks.back().data());
  }
  return blocks;
}

std::uint16_t events_in(const std::vector<unsigned char>& block) {
  EventBlockHead head;
  std::memcpy(&head, block.data(), sizeof head);
  return head.events;
}

// A file of 8 KiB of header, then the given blocks (the last `cut` bytes short).
void write_blocks(const std::string& path, const std::vector<std::vector<unsigned char>>& blocks, std::size_t cut = 0) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << std::string(8192, '\xAB');
  for (std::size_t b = 0; b < blocks.size(); ++b)
    out.write(reinterpret_cast<const char*>(blocks[b].data()),
              static_cast<std::streamsize>(b + 1 == blocks.size() ? kEventBlock - cut : kEventBlock));
}

// Every event the reader returns, in rounds of 333; each must be events[request].
std::vector<Event> read_events(EventBlockReader& in, const std::vector<Event>& events) {
  std::vector<Event> all, round(333);
  while (const std::size_t n = in.read(round.data(), round.size()))
    all.insert(all.end(), round.begin(), round.begin() + static_cast<std::ptrdiff_t>(n));
  for (const Event& e : all) {
    EXPECT_GE(e.request, 0);
    EXPECT_EQ(std::memcmp(&e, &events[static_cast<std::size_t>(e.request)], sizeof e), 0) << e.request;
  }
  for (std::size_t k = 1; k < all.size(); ++k) EXPECT_LT(all[k - 1].request, all[k].request) << "in order";
  return all;
}

TEST(EventBlockReader, ReadsEveryEventInOrderInRoundsOfAnySize) {
  const std::string path = temp_path("blocks_whole");
  const std::vector<Event> events = numbered_events(5000);
  const auto blocks = blocks_of(events);
  ASSERT_GE(blocks.size(), 4u);
  write_blocks(path, blocks);
  EventBlockReader in;
  ASSERT_TRUE(in.open(path, 8192));
  EXPECT_EQ(read_events(in, events).size(), events.size());
  EXPECT_EQ(in.lost(), 0);
  EXPECT_EQ(in.damaged_blocks(), 0);
  EXPECT_FALSE(in.cut_off());
  ::unlink(path.c_str());
  EXPECT_FALSE(in.open(path, 8192));
}

TEST(EventBlockReader, ACountingReadingGivesTheEventsAndLossesOfAReading) {
  // MPI_Finalize counts the spool's events before it places them in the file, then reads them: both
  // readings must agree, whatever the spool's damage.
  const std::string path = temp_path("blocks_count");
  const std::vector<Event> events = numbered_events(5000);
  for (int damage = 0; damage < 4; ++damage) {
    auto blocks = blocks_of(events);
    if (damage == 1) blocks[1][100] ^= 0x10;  // a damaged payload
    if (damage == 2) std::fill(blocks[2].begin(), blocks[2].end(), 0);
    if (damage == 3) blocks.back()[300] ^= 1;  // the last block
    write_blocks(path, blocks, damage == 3 ? 1000 : 0);
    EventBlockReader reading, counting, partly;
    ASSERT_TRUE(reading.open(path, 8192));
    ASSERT_TRUE(counting.open(path, 8192));
    ASSERT_TRUE(partly.open(path, 8192));
    const auto read = static_cast<std::int64_t>(read_events(reading, events).size());
    EXPECT_EQ(counting.count_rest(), read) << "damage " << damage;
    EXPECT_EQ(counting.lost(), reading.lost());
    EXPECT_EQ(counting.damaged_blocks(), reading.damaged_blocks());
    std::vector<Event> some(700);
    const auto first = static_cast<std::int64_t>(partly.read(some.data(), some.size()));
    EXPECT_EQ(first + partly.count_rest(), read) << "the rest after a read";
    EXPECT_EQ(counting.count_rest(), 0) << "at the end";
    EXPECT_EQ(read + reading.lost(), 5000) << "every event read or counted lost";
  }
  ::unlink(path.c_str());
}

TEST(EventBlockReader, ABlockThatNeverReachedTheDiskOrIsDamagedCostsExactlyItsEvents) {
  const std::string path = temp_path("blocks_hole");
  const std::vector<Event> events = numbered_events(5000);
  for (const std::size_t bad : {std::size_t{0}, std::size_t{1}}) {
    for (const bool zeros : {true, false}) {
      auto blocks = blocks_of(events);
      const std::uint16_t missing = events_in(blocks[bad]);
      if (zeros)
        std::fill(blocks[bad].begin(), blocks[bad].end(), 0);
      else
        blocks[bad][100] ^= 0x10;  // a damaged payload
      write_blocks(path, blocks);
      EventBlockReader in;
      ASSERT_TRUE(in.open(path, 8192));
      EXPECT_EQ(read_events(in, events).size(), events.size() - missing);
      EXPECT_EQ(in.lost(), missing) << "block " << bad << (zeros ? " zeroed" : " damaged");
      EXPECT_EQ(in.damaged_blocks(), 1);
    }
  }
  // The last block damaged: no later block numbers the gap, its own head (still whole) does.
  auto blocks = blocks_of(events);
  blocks.back()[200] ^= 1;
  write_blocks(path, blocks);
  EventBlockReader in;
  ASSERT_TRUE(in.open(path, 8192));
  EXPECT_EQ(read_events(in, events).size(), events.size() - events_in(blocks.back()));
  EXPECT_EQ(in.lost(), events_in(blocks.back()));
  ::unlink(path.c_str());
}

TEST(EventBlockReader, ARepeatedBlockIsSkippedAndABlockCutOffAtTheEndCounted) {
  const std::string path = temp_path("blocks_cut");
  const std::vector<Event> events = numbered_events(5000);
  auto blocks = blocks_of(events);
  blocks.insert(blocks.begin() + 2, blocks[1]);  // out of order: written twice
  write_blocks(path, blocks);
  EventBlockReader in;
  ASSERT_TRUE(in.open(path, 8192));
  EXPECT_EQ(read_events(in, events).size(), events.size());
  EXPECT_EQ(in.damaged_blocks(), 1);
  EXPECT_EQ(in.lost(), 0);
  // Cut inside the last block's payload: as many lost as its head says; inside its head: at least one.
  blocks = blocks_of(events);
  for (const std::size_t cut : {kEventBlock - 2000, kEventBlock - 10}) {
    write_blocks(path, blocks, cut);
    ASSERT_TRUE(in.open(path, 8192));
    EXPECT_EQ(read_events(in, events).size(), events.size() - events_in(blocks.back()));
    EXPECT_TRUE(in.cut_off());
    EXPECT_EQ(in.lost(), cut == kEventBlock - 10 ? 1 : events_in(blocks.back())) << "cut " << cut;
  }
  ::unlink(path.c_str());
}

TEST(EventBlockReader, ARepeatedLastBlockATrailingZeroBlockAndCraftedNumbersAreSkippedAndCountedRight) {
  const std::string path = temp_path("blocks_edges");
  const std::vector<Event> events = numbered_events(5000);
  const auto whole = blocks_of(events);
  EventBlockReader in;
  // The last block written twice: nothing is lost.
  auto blocks = whole;
  blocks.push_back(blocks.back());
  write_blocks(path, blocks);
  ASSERT_TRUE(in.open(path, 8192));
  EXPECT_EQ(read_events(in, events).size(), events.size());
  EXPECT_EQ(in.lost(), 0);
  EXPECT_EQ(in.damaged_blocks(), 1);
  // A zero block after the last: its events are unknown, at least one.
  blocks = whole;
  blocks.emplace_back(kEventBlock, 0);
  write_blocks(path, blocks);
  ASSERT_TRUE(in.open(path, 8192));
  EXPECT_EQ(read_events(in, events).size(), events.size());
  EXPECT_EQ(in.lost(), 1);
  EXPECT_EQ(in.damaged_blocks(), 1);
  // Blocks with a valid check but numbers no rank wrote (far beyond the next, near 2^64): skipped,
  // the real blocks after them read, the count of lost events neither negative nor wrapped.
  blocks = whole;
  for (const std::uint64_t first : {std::uint64_t{0x7ffffffffffffff0}, ~std::uint64_t{0} - 2, std::uint64_t{1} << 50}) {
    std::vector<unsigned char> crafted = whole[1];
    EventBlockHead head;
    std::memcpy(&head, crafted.data(), sizeof head);
    head.first = first;
    head.check = event_block_check(head, crafted.data() + sizeof head);
    std::memcpy(crafted.data(), &head, sizeof head);
    blocks.insert(blocks.begin() + 1, crafted);
  }
  write_blocks(path, blocks);
  ASSERT_TRUE(in.open(path, 8192));
  EXPECT_EQ(read_events(in, events).size(), events.size());
  EXPECT_EQ(in.lost(), 0);
  EXPECT_EQ(in.damaged_blocks(), 3);
  ::unlink(path.c_str());
}

}  // namespace
}  // namespace ripple::trace::detail
