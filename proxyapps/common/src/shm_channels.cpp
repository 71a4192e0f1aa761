#include "ripple/proxy/shm_channels.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <atomic>
#include <cstring>

#include "ripple/common/error.hpp"
#include "ripple/common/mpi_util.hpp"
#include "ripple/common/numa.hpp"

namespace ripple::proxy {
namespace {

constexpr std::size_t kLine = 64;
std::size_t round_up(std::size_t v) { return (v + kLine - 1) / kLine * kLine; }
std::size_t channel_bytes(std::size_t payload) { return 2 * kLine + 2 * round_up(payload); }

void wait_for(const std::int64_t* word, std::int64_t at_least) {
  // Processes may share cores (oversubscribed runs): yield while waiting.
  for (int spins = 0; std::atomic_ref<std::int64_t>(*const_cast<std::int64_t*>(word)).load(std::memory_order_acquire) < at_least;
       ++spins)
    if (spins > 64) sched_yield();
}

}  // namespace

NodeInfo::NodeInfo(MPI_Comm comm) {
  RIPPLE_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, comm_rank(comm), MPI_INFO_NULL, &node_));
  MPI_Group world = MPI_GROUP_NULL, node = MPI_GROUP_NULL;
  RIPPLE_MPI_CHECK(MPI_Comm_group(comm, &world));
  RIPPLE_MPI_CHECK(MPI_Comm_group(node_, &node));
  const int n = comm_size(comm);
  std::vector<int> ranks(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) ranks[static_cast<std::size_t>(r)] = r;
  node_rank_.resize(static_cast<std::size_t>(n));
  RIPPLE_MPI_CHECK(MPI_Group_translate_ranks(world, n, ranks.data(), node, node_rank_.data()));
  for (int& r : node_rank_)
    if (r == MPI_UNDEFINED) r = -1;
  MPI_Group_free(&world);
  MPI_Group_free(&node);
}

NodeInfo::~NodeInfo() {
  if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
}

ShmChannels::ShmChannels(MPI_Comm comm, const NodeInfo& node, const std::vector<Spec>& sends, const std::vector<Spec>& receives,
                         int numa_node) {
  const int me = comm_rank(comm);
  // This rank's segment holds the channels it receives on: [flag | ack | buffer 0 | buffer 1] each.
  std::size_t size = 0;
  std::vector<std::int64_t> descriptors;  // (sender, receiver, tag, offset) per receive channel
  for (const Spec& r : receives) {
    descriptors.insert(descriptors.end(), {r.peer, me, r.tag, static_cast<std::int64_t>(size)});
    size += channel_bytes(r.bytes);
  }
  MPI_Info info = MPI_INFO_NULL;
  RIPPLE_MPI_CHECK(MPI_Info_create(&info));
  RIPPLE_MPI_CHECK(MPI_Info_set(info, "alloc_shared_noncontig", "true"));  // page-aligned segment per rank
  char* base = nullptr;
  const int rc =
      MPI_Win_allocate_shared(static_cast<MPI_Aint>(std::max<std::size_t>(size, kLine)), 1, info, node.node_comm(), &base, &win_);
  MPI_Info_free(&info);
  RIPPLE_MPI_CHECK(rc);
  if (numa_node >= 0 && size > 0) bind_to_numa_node(base, size, numa_node);
  std::memset(base, 0, size);  // first touch, after the placement

  // Everybody on the node learns where each channel lives.
  const int members = comm_size(node.node_comm());
  int count = static_cast<int>(descriptors.size());
  std::vector<int> counts(static_cast<std::size_t>(members)), displs(static_cast<std::size_t>(members), 0);
  RIPPLE_MPI_CHECK(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, node.node_comm()));
  for (int r = 1; r < members; ++r)
    displs[static_cast<std::size_t>(r)] = displs[static_cast<std::size_t>(r - 1)] + counts[static_cast<std::size_t>(r - 1)];
  std::vector<std::int64_t> all(static_cast<std::size_t>(displs.back() + counts.back()));
  RIPPLE_MPI_CHECK(MPI_Allgatherv(descriptors.data(), count, MPI_INT64_T, all.data(), counts.data(), displs.data(), MPI_INT64_T,
                                  node.node_comm()));
  const auto channel_at = [&](int owner, std::int64_t offset, std::size_t bytes) {
    MPI_Aint seg_size = 0;
    int disp = 0;
    char* seg = nullptr;
    RIPPLE_MPI_CHECK(MPI_Win_shared_query(win_, node.node_rank(owner), &seg_size, &disp, &seg));
    char* c = seg + offset;
    return Channel{reinterpret_cast<std::int64_t*>(c),
                   reinterpret_cast<std::int64_t*>(c + kLine),
                   {c + 2 * kLine, c + 2 * kLine + round_up(bytes)}};
  };
  std::size_t offset = 0;
  for (const Spec& r : receives) {
    receives_.push_back(channel_at(me, static_cast<std::int64_t>(offset), r.bytes));
    offset += channel_bytes(r.bytes);
  }
  for (const Spec& s : sends) {
    bool found = false;
    for (std::size_t k = 0; k + 3 < all.size(); k += 4)
      if (all[k] == me && all[k + 1] == s.peer && all[k + 2] == s.tag) {
        sends_.push_back(channel_at(s.peer, all[k + 3], s.bytes));
        found = true;
      }
    RIPPLE_VERIFY(found, fmt::format("shared-memory channel to rank {} tag {} has no receiver", s.peer, s.tag));
  }
  RIPPLE_MPI_CHECK(MPI_Barrier(node.node_comm()));  // every segment is zeroed before anyone writes
}

ShmChannels::~ShmChannels() {
  if (win_ != MPI_WIN_NULL) MPI_Win_free(&win_);
}

void* ShmChannels::send_buffer(std::size_t c, std::int64_t seq) {
  Channel& ch = sends_[c];
  wait_for(ch.ack, seq - 2);  // the receiver is done with the buffer's previous message
  return ch.data[seq % 2];
}

void ShmChannels::publish(std::size_t c, std::int64_t seq) {
  std::atomic_ref<std::int64_t>(*sends_[c].flag).store(seq, std::memory_order_release);
}

const void* ShmChannels::receive(std::size_t c, std::int64_t seq) {
  Channel& ch = receives_[c];
  wait_for(ch.flag, seq);
  return ch.data[seq % 2];
}

void ShmChannels::consumed(std::size_t c, std::int64_t seq) {
  std::atomic_ref<std::int64_t>(*receives_[c].ack).store(seq, std::memory_order_release);
}

}  // namespace ripple::proxy
