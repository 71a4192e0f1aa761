// The event spool against its truth, the events handed to it: whatever the appends' sizes, around
// the ring's wrap, the file must hold exactly those events in order, in whole blocks after the
// header blocks; a failed write must cut the file back to whole blocks and count the rest as lost,
// and later appends must go on after them, numbered so that a reader counts the gap.
#include "event_spool.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "event_ring.hpp"
#include "spool_reader.hpp"

namespace ripple::trace::detail {
namespace {

// Rings are the recorder's own EventRing: page-aligned, as O_DIRECT needs.

Event numbered(std::uint64_t k) {
  Event e;
  e.t_enter = static_cast<double>(k);
  e.request = static_cast<std::int64_t>(k);
  e.call = static_cast<std::int32_t>(k % 7);
  e.tag = static_cast<std::int32_t>(k * 3);
  return e;
}

std::string temp_path(const char* name) { return ::testing::TempDir() + "/" + name + std::to_string(::getpid()); }

// The file's header and its events after data_offset; `lost`: what the blocks' numbering says is missing.
std::vector<Event> read_back(const std::string& path, SpoolHeader& header, std::int64_t* lost = nullptr) {
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(&header), sizeof header);
  EXPECT_EQ(header.data_offset, EventSpool::kDataOffset);
  EventBlockReader blocks;
  EXPECT_TRUE(blocks.open(path, header.data_offset, header.version));
  std::vector<Event> events(kMaxEventsPerBlock);
  std::size_t got = 0;
  while (std::size_t n = blocks.read(events.data() + got, kMaxEventsPerBlock)) {
    got += n;
    events.resize(got + kMaxEventsPerBlock);
  }
  events.resize(got);
  EXPECT_FALSE(blocks.cut_off()) << "a partial block at the end";
  EXPECT_EQ(blocks.damaged_blocks(), 0);
  if (lost != nullptr) *lost = blocks.lost();
  return events;
}

off_t file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

// While it lives, files may not grow beyond `bytes` (writes beyond fail with EFBIG, not SIGXFSZ).
class FileSizeLimit {
public:
  explicit FileSizeLimit(rlim_t bytes) : handler_(std::signal(SIGXFSZ, SIG_IGN)) {
    ::getrlimit(RLIMIT_FSIZE, &old_);
    rlimit small = old_;
    small.rlim_cur = bytes;
    ok_ = ::setrlimit(RLIMIT_FSIZE, &small) == 0;
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    std::signal(SIGXFSZ, handler_);
  }
  [[nodiscard]] bool ok() const { return ok_; }

private:
  void (*handler_)(int);
  rlimit old_{};
  bool ok_ = false;
};

// Records events [from, to) into the ring, as the recorder's producers do.
void produce(EventRing& ring, std::uint64_t from, std::uint64_t to) {
  for (std::uint64_t k = from; k < to; ++k) ring[k & (ring.size() - 1)] = numbered(k);
}

TEST(EventSpool, HoldsExactlyTheAppendedEventsAcrossBlocksAndTheRingsWrap) {
  const std::string path = temp_path("spool-exact");
  EventRing ring;
  ring.allocate(1024);  // 22 blocks
  EventSpool spool;
  ASSERT_TRUE(spool.open(path));
  SpoolHeader h;
  h.rank = 3;
  h.ranks = 4;
  ASSERT_TRUE(spool.write_header(h, "MPI_Init\nMPI_Send"));
  // Appends smaller than a block, exactly a block's worth, several blocks, across the wrap, a whole ring.
  std::uint64_t head = 0;
  for (const std::uint64_t n : {1, 5, 46, 47, 200, 700, 1024, 3, 1000, 93, 1024, 1}) {
    produce(ring, head, head + n);
    head += n;
    EXPECT_EQ(spool.append(ring.data(), ring.size(), head), head) << "every slot released after n = " << n;
  }
  EXPECT_EQ(spool.written(), static_cast<std::int64_t>(head));
  EXPECT_EQ(spool.lost(), 0);
  EXPECT_FALSE(spool.failed());
  std::printf("O_DIRECT on %s: %s\n", ::testing::TempDir().c_str(), spool.direct() ? "yes" : "refused (all buffered)");
  spool.close();
  SpoolHeader back;
  const std::vector<Event> events = read_back(path, back);
  EXPECT_EQ(std::memcmp(back.magic, "RPLSPOOL", 8), 0);
  EXPECT_EQ(back.rank, 3);
  EXPECT_EQ(back.ranks, 4);
  EXPECT_EQ(back.names_bytes, 17);  // the call names right after the header, before the events
  std::ifstream names(path, std::ios::binary);
  names.seekg(sizeof back);
  std::string text(17, '\0');
  names.read(text.data(), 17);
  EXPECT_EQ(text, "MPI_Init\nMPI_Send");
  ASSERT_EQ(events.size(), head);
  for (std::uint64_t k = 0; k < head; ++k) {
    const Event e = numbered(k);
    ASSERT_EQ(std::memcmp(&events[k], &e, sizeof e), 0) << "event " << k;
  }
  EXPECT_EQ((file_size(path) - EventSpool::kDataOffset) % static_cast<off_t>(EventSpool::kBlock), 0) << "whole blocks";
  ::unlink(path.c_str());
}

TEST(EventSpool, AFailedWriteCutsBackToWholeBlocksCountsTheRestAndLaterAppendsFollow) {
  const std::string path = temp_path("spool-fail");
  constexpr auto kBlock = static_cast<off_t>(EventSpool::kBlock);
  // Where the limit falls: inside the second block, on its end, inside a later stage of blocks (an
  // append of many events is written 64 blocks at a time).
  for (const off_t room : {kBlock + 1000, 2 * kBlock, 100 * kBlock + 5}) {
    EventRing ring;
    ring.allocate(1 << 18);
    EventSpool spool;
    ASSERT_TRUE(spool.open(path));
    ASSERT_TRUE(spool.write_header(SpoolHeader{}, ""));
    produce(ring, 0, 100);
    ASSERT_EQ(spool.append(ring.data(), ring.size(), 100), 100u);  // one block
    const std::uint64_t big = 150000;                              // about 250 blocks
    {
      const FileSizeLimit limit(static_cast<rlim_t>(EventSpool::kDataOffset + room));
      ASSERT_TRUE(limit.ok());
      produce(ring, 100, 100 + big);
      EXPECT_EQ(spool.append(ring.data(), ring.size(), 100 + big), 100 + big) << "lost events release their slots too";
    }
    EXPECT_TRUE(spool.failed());
    const std::int64_t written = spool.written();
    EXPECT_EQ(written + spool.lost(), static_cast<std::int64_t>(100 + big));
    EXPECT_GE(written, 100);
    EXPECT_LT(written, static_cast<std::int64_t>(100 + big));
    const off_t size = file_size(path);
    EXPECT_EQ((size - EventSpool::kDataOffset) % kBlock, 0) << "cut back to whole blocks, room " << room;
    EXPECT_LE(size, EventSpool::kDataOffset + room);
    // With room again, later events follow the last whole block.
    produce(ring, 100 + big, 200 + big);
    EXPECT_EQ(spool.append(ring.data(), ring.size(), 200 + big), 200 + big);
    EXPECT_EQ(spool.written(), written + 100);
    spool.close();
    SpoolHeader back;
    std::int64_t gap = 0;
    const std::vector<Event> events = read_back(path, back, &gap);
    ASSERT_EQ(static_cast<std::int64_t>(events.size()), written + 100);
    EXPECT_EQ(gap, spool.lost()) << "the reader counts the lost events from the blocks' numbers";
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(events.size()); ++k) {
      const auto expected = k < written ? k : k - written + static_cast<std::int64_t>(100 + big);
      ASSERT_EQ(events[static_cast<std::size_t>(k)].request, expected) << "room " << room << " at " << k;
    }
  }
  ::unlink(path.c_str());
}

TEST(EventSpool, AnUncreatableFileFailsWithErrno) {
  EventSpool spool;
  EXPECT_FALSE(spool.open("/nonexistent-directory/rank-000000.bin"));
  EXPECT_EQ(errno, ENOENT);
  EXPECT_FALSE(spool.is_open());
  EXPECT_FALSE(spool.write_header(SpoolHeader{}, ""));
}

TEST(EventSpool, KeepsThisBuildsCallNamesAndDropsNamesThatDoNotFitItsFirstBlocks) {
  // This build's list fits with room to grow (recover reads each spool's `call` with it).
  EXPECT_LT(sizeof(SpoolHeader) + ripple::trace::call_names_text().size(), static_cast<std::size_t>(EventSpool::kDataOffset) / 2);
  const std::string path = temp_path("spool-names");
  EventSpool spool;
  ASSERT_TRUE(spool.open(path));
  ASSERT_TRUE(spool.write_header(SpoolHeader{}, std::string(EventSpool::kDataOffset, 'x')));
  spool.close();
  SpoolHeader back;
  EXPECT_TRUE(read_back(path, back).empty());
  EXPECT_EQ(back.version, 6);
  EXPECT_EQ(back.names_bytes, 0);  // not kept: recover then uses its own build's list
  ::unlink(path.c_str());
}

}  // namespace
}  // namespace ripple::trace::detail
