// The event spool against its truth, the events handed to it: whatever mix of O_DIRECT blocks and
// buffered ends an append takes, around the ring's wrap, the file must hold exactly those events in
// order after a one-block header; a failed write must cut the file back to whole events and count
// the rest as lost, and later appends must go on after them.
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

// The file's header and its events after data_offset.
std::vector<Event> read_back(const std::string& path, SpoolHeader& header) {
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(&header), sizeof header);
  EXPECT_EQ(header.data_offset, EventSpool::kDataOffset);
  in.seekg(header.data_offset);
  std::vector<Event> events;
  Event e;
  while (in.read(reinterpret_cast<char*>(&e), sizeof e)) events.push_back(e);
  EXPECT_EQ(in.gcount(), 0) << "a partial record at the end";
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
    ASSERT_EQ(events[k].request, static_cast<std::int64_t>(k));
    ASSERT_EQ(events[k].tag, static_cast<std::int32_t>(k * 3));
  }
  ::unlink(path.c_str());
}

TEST(EventSpool, AFailedWriteCutsBackToWholeEventsCountsTheRestAndLaterAppendsFollow) {
  const std::string path = temp_path("spool-fail");
  EventRing ring;
  ring.allocate(1024);
  EventSpool spool;
  ASSERT_TRUE(spool.open(path));
  ASSERT_TRUE(spool.write_header(SpoolHeader{}, ""));
  produce(ring, 0, 100);
  ASSERT_EQ(spool.append(ring.data(), ring.size(), 100), 100u);
  std::uint64_t released = 0;
  {
    // The file may not grow beyond 130.5 events: the next append of 400 stops mid-event.
    const FileSizeLimit limit(static_cast<rlim_t>(EventSpool::kDataOffset) + 130 * sizeof(Event) + sizeof(Event) / 2);
    ASSERT_TRUE(limit.ok());
    produce(ring, 100, 500);
    released = spool.append(ring.data(), ring.size(), 500);
  }
  EXPECT_EQ(released, 500u) << "lost events release their slots too";
  EXPECT_TRUE(spool.failed());
  EXPECT_FALSE(spool.direct()) << "the file no longer mirrors the ring's blocks";
  EXPECT_EQ(spool.written(), 130);
  EXPECT_EQ(spool.lost(), 370);
  EXPECT_EQ(file_size(path), EventSpool::kDataOffset + 130 * static_cast<off_t>(sizeof(Event))) << "cut back to whole events";
  // With room again, later events follow the last whole one.
  produce(ring, 500, 1500);  // at most a ring's worth, as producers wait for the spool
  EXPECT_EQ(spool.append(ring.data(), ring.size(), 1500), 1500u);
  EXPECT_EQ(spool.written(), 130 + 1000);
  EXPECT_EQ(spool.lost(), 370);
  spool.close();
  SpoolHeader back;
  const std::vector<Event> events = read_back(path, back);
  ASSERT_EQ(events.size(), 1130u);
  for (std::size_t k = 0; k < events.size(); ++k) {
    const std::int64_t expected = k < 130 ? static_cast<std::int64_t>(k) : static_cast<std::int64_t>(k - 130 + 500);
    ASSERT_EQ(events[k].request, expected) << "at " << k;
  }
  ::unlink(path.c_str());
}

TEST(EventSpool, AFailedDirectWriteKeepsWholeEventsAndLaterAppendsFollow) {
  const std::string path = temp_path("spool-direct-fail");
  // Where the limit falls: inside the second direct block, on a block's end, a few records into the
  // third block, just past the third.
  for (const off_t room : {4096 + 1000, 2 * 4096, 2 * 4096 + 3 * 88, 3 * 4096 + 5}) {
    EventRing ring;
    ring.allocate(1024);
    EventSpool spool;
    ASSERT_TRUE(spool.open(path));
    ASSERT_TRUE(spool.write_header(SpoolHeader{}, ""));
    if (!spool.direct()) GTEST_SKIP() << ::testing::TempDir() << " refuses O_DIRECT: the direct path is not exercised here";
    {
      const FileSizeLimit limit(static_cast<rlim_t>(EventSpool::kDataOffset + room));
      ASSERT_TRUE(limit.ok());
      produce(ring, 0, 500);  // 500 * 88 bytes: ten whole blocks written directly, the end buffered
      EXPECT_EQ(spool.append(ring.data(), ring.size(), 500), 500u);
    }
    const std::int64_t written = spool.written();
    EXPECT_EQ(written, room / static_cast<off_t>(sizeof(Event))) << "room " << room;
    EXPECT_EQ(written + spool.lost(), 500);
    EXPECT_EQ(file_size(path), EventSpool::kDataOffset + written * static_cast<off_t>(sizeof(Event)));
    produce(ring, 500, 1400);
    EXPECT_EQ(spool.append(ring.data(), ring.size(), 1400), 1400u);
    spool.close();
    SpoolHeader back;
    const std::vector<Event> events = read_back(path, back);
    ASSERT_EQ(static_cast<std::int64_t>(events.size()), written + 900);
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(events.size()); ++k)
      ASSERT_EQ(events[static_cast<std::size_t>(k)].request, k < written ? k : k - written + 500)
          << "room " << room << " at " << k;
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
  EXPECT_EQ(back.version, 4);
  EXPECT_EQ(back.names_bytes, 0);  // not kept: recover then uses its own build's list
  ::unlink(path.c_str());
}

}  // namespace
}  // namespace ripple::trace::detail
