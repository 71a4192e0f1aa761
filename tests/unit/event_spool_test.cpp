// The event spool against its truth, the events handed to it: whatever the appends' sizes, around
// the ring's wrap, the file must hold exactly those events in order, in whole blocks after the
// header blocks; a failed write must cut the file back to whole blocks and count the rest as lost,
// and later appends must go on after them, numbered so that a reader counts the gap. The header
// must say how many events the stream had, so that losses at its end (where no later block's
// number shows them) are known; a write across the file-size limit must fail without SIGXFSZ.
#include "event_spool.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
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
  EXPECT_EQ(header.version, kBlockFormat);
  EXPECT_TRUE(blocks.open(path, header.data_offset));
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

// While it lives, files may not grow beyond `bytes` (writes beyond fail with EFBIG; SIGXFSZ is
// ignored unless `keep_signal`).
class FileSizeLimit {
public:
  explicit FileSizeLimit(rlim_t bytes, bool keep_signal = false)
      : handler_(keep_signal ? nullptr : std::signal(SIGXFSZ, SIG_IGN)), keep_signal_(keep_signal) {
    ::getrlimit(RLIMIT_FSIZE, &old_);
    rlimit small = old_;
    small.rlim_cur = bytes;
    ok_ = ::setrlimit(RLIMIT_FSIZE, &small) == 0;
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &old_);
    if (!keep_signal_) std::signal(SIGXFSZ, handler_);
    read_file_size_limit();  // the spool's writes see the limit as it is again
  }
  [[nodiscard]] bool ok() const { return ok_; }

private:
  void (*handler_)(int);
  bool keep_signal_;
  rlimit old_{};
  bool ok_ = false;
};

// While it lives, SIGXFSZ is counted instead of ending the test (a write beyond the limit then
// fails with EFBIG after the signal).
std::atomic<int> g_sigxfsz{0};
class SigxfszCounter {
public:
  SigxfszCounter() {
    struct sigaction count {};
    count.sa_handler = [](int) { g_sigxfsz.fetch_add(1); };
    sigemptyset(&count.sa_mask);
    ::sigaction(SIGXFSZ, &count, &old_);
    g_sigxfsz = 0;
  }
  SigxfszCounter(const SigxfszCounter&) = delete;
  SigxfszCounter& operator=(const SigxfszCounter&) = delete;
  ~SigxfszCounter() { ::sigaction(SIGXFSZ, &old_, nullptr); }
  [[nodiscard]] int raised() const { return g_sigxfsz.load(); }

private:
  struct sigaction old_ {};
};

// The stream's count the file's header blocks keep, as `recover` reads it.
std::int64_t count_on_disk(const std::string& path) {
  SpoolHeader header;
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(&header), sizeof header);
  return read_stream_count(path, header, header.data_offset);
}

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

TEST(EventSpool, ItsHeaderKeepsTheStreamsCountSoThatEventsLostAtItsEndAreKnown) {
  const std::string path = temp_path("spool-count");
  constexpr auto kBlock = static_cast<off_t>(EventSpool::kBlock);
  EventRing ring;
  ring.allocate(1 << 18);
  EventSpool spool;
  ASSERT_TRUE(spool.open(path));
  ASSERT_TRUE(spool.write_header(SpoolHeader{}, ripple::trace::call_names_text()));
  EXPECT_EQ(count_on_disk(path), 0) << "written with the header";
  produce(ring, 0, 100);
  ASSERT_EQ(spool.append(ring.data(), ring.size(), 100), 100u);
  std::uint64_t head = 100;
  {
    // A disk that stays full (here: the file-size limit): every later append fails, and no block
    // after them numbers the gap. The count is on disk after each failure, before any close (a
    // run killed now leaves it so).
    const FileSizeLimit limit(static_cast<rlim_t>(EventSpool::kDataOffset + kBlock));
    ASSERT_TRUE(limit.ok());
    for (const std::uint64_t n : {150000, 7, 30000}) {
      produce(ring, head, head + n);
      head += n;
      EXPECT_EQ(spool.append(ring.data(), ring.size(), head), head);
      EXPECT_EQ(count_on_disk(path), static_cast<std::int64_t>(head)) << "after the failed append up to " << head;
    }
  }
  EXPECT_TRUE(spool.failed());
  EXPECT_EQ(spool.numbered(), static_cast<std::int64_t>(head));
  SpoolHeader back;
  std::int64_t gaps = 0;
  std::vector<Event> events = read_back(path, back, &gaps);
  EXPECT_EQ(static_cast<std::int64_t>(events.size()), spool.written());
  EXPECT_LT(gaps, spool.lost()) << "the blocks' numbers alone do not show the losses at the end";
  EXPECT_EQ(stream_lost(count_on_disk(path), static_cast<std::int64_t>(events.size()), gaps), spool.lost());
  // Room again: later blocks follow, the count on disk stays behind them, and the gap they show is
  // the loss; closed, the count is the stream's.
  const std::int64_t lost = spool.lost();
  produce(ring, head, head + 5000);
  head += 5000;
  EXPECT_EQ(spool.append(ring.data(), ring.size(), head), head);
  events = read_back(path, back, &gaps);
  EXPECT_LT(count_on_disk(path), static_cast<std::int64_t>(head));
  EXPECT_EQ(stream_lost(count_on_disk(path), static_cast<std::int64_t>(events.size()), gaps), lost);
  spool.close();
  EXPECT_EQ(count_on_disk(path), static_cast<std::int64_t>(head));
  EXPECT_EQ(stream_lost(count_on_disk(path), static_cast<std::int64_t>(events.size()), gaps), lost);
  EXPECT_EQ(back.names_bytes, static_cast<std::int32_t>(ripple::trace::call_names_text().size())) << "the names still fit";
  ::unlink(path.c_str());
}

TEST(EventSpool, AStreamsCountIsUnknownWhereTheSpoolKeepsNone) {
  const std::string path = temp_path("spool-nocount");
  EventSpool spool;
  ASSERT_TRUE(spool.open(path));
  ASSERT_TRUE(spool.write_header(SpoolHeader{}, "MPI_Init"));
  spool.close();
  ASSERT_GE(count_on_disk(path), 0);
  SpoolHeader header;
  {
    std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
    f.read(reinterpret_cast<char*>(&header), sizeof header);
    EXPECT_EQ(header.stream_count, 1);
  }
  // An older build's spool (no count kept), a damaged count, a spool cut inside its header blocks.
  SpoolHeader older = header;
  older.stream_count = 0;
  EXPECT_EQ(read_stream_count(path, older, header.data_offset), -1);
  {
    std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(EventSpool::kDataOffset - 16);
    f.put('x');
  }
  EXPECT_EQ(read_stream_count(path, header, header.data_offset), -1);
  ASSERT_EQ(::truncate(path.c_str(), 1000), 0);
  EXPECT_EQ(read_stream_count(path, header, header.data_offset), -1);
  EXPECT_EQ(stream_lost(-1, 10, 3), -1) << "unknown, not the gaps alone";
  ::unlink(path.c_str());
}

TEST(EventSpool, AWriteAcrossTheFileSizeLimitFailsAndCountsAsLostWithoutSIGXFSZ) {
  const std::string path = temp_path("spool-fsize");
  constexpr auto kBlock = static_cast<off_t>(EventSpool::kBlock);
  const off_t cap = EventSpool::kDataOffset + 10 * kBlock + 100;
  const SigxfszCounter signals;
  {
    const FileSizeLimit limit(static_cast<rlim_t>(cap), true);
    ASSERT_TRUE(limit.ok());
    EventRing ring;
    ring.allocate(1 << 18);
    EventSpool spool;
    ASSERT_TRUE(spool.open(path));  // takes the limit
    ASSERT_TRUE(spool.write_header(SpoolHeader{}, ""));
    // Appends of about 5 blocks each: the first ones fit, then every one would cross the limit.
    std::uint64_t head = 0;
    for (int k = 0; k < 20; ++k) {
      produce(ring, head, head + 3000);
      head += 3000;
      EXPECT_EQ(spool.append(ring.data(), ring.size(), head), head);
    }
    EXPECT_TRUE(spool.failed());
    EXPECT_GT(spool.written(), 0);
    EXPECT_GT(spool.lost(), 0);
    EXPECT_EQ(spool.numbered(), static_cast<std::int64_t>(head));
    const off_t size = file_size(path);
    EXPECT_LE(size, cap);
    EXPECT_EQ((size - EventSpool::kDataOffset) % kBlock, 0);
    EXPECT_EQ(count_on_disk(path), static_cast<std::int64_t>(head));
    spool.close();
    // The side spools' writes (write_all at the file's end, at an offset, appending) alike.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::lseek(fd, 0, SEEK_END), size);
    const std::vector<char> bytes(static_cast<std::size_t>(cap - size) + 1, 'r');
    EXPECT_TRUE(write_all(fd, bytes.data(), bytes.size() - 1)) << "up to the limit";
    errno = 0;
    EXPECT_FALSE(write_all(fd, bytes.data(), 1));
    EXPECT_EQ(errno, EFBIG);
    EXPECT_FALSE(write_all(fd, bytes.data(), 2, cap - 1));
    EXPECT_TRUE(write_all(fd, bytes.data(), 1, cap - 1)) << "within the limit";
    ::close(fd);
    const int appending = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    ASSERT_GE(appending, 0);
    EXPECT_FALSE(write_all(appending, bytes.data(), 1));
    ::close(appending);
    EXPECT_EQ(file_size(path), cap) << "a refused write writes nothing";
  }
  EXPECT_EQ(signals.raised(), 0) << "a write was made across the limit";
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
