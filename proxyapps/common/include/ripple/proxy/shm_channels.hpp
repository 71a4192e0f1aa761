#pragma once
// Message-free transport between ranks on one node, standing in for CXL.mem pooled memory: each
// channel is a double buffer in an MPI-3 shared-memory window (MPI_Win_allocate_shared on the
// MPI_COMM_TYPE_SHARED communicator) that the sender writes and the receiver reads directly. A
// sequence flag (release/acquire atomics) says a buffer is ready, an acknowledgement says it was
// read, so no MPI message carries the data.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ripple::proxy {

// Which ranks of a communicator share this rank's node.
class NodeInfo {
public:
  explicit NodeInfo(MPI_Comm comm);  // collective
  NodeInfo(const NodeInfo&) = delete;
  NodeInfo& operator=(const NodeInfo&) = delete;
  ~NodeInfo();
  [[nodiscard]] MPI_Comm node_comm() const { return node_; }
  // Rank of `rank` (in comm) within the node communicator, or -1 if it is on another node.
  [[nodiscard]] int node_rank(int rank) const { return rank < 0 ? -1 : node_rank_[static_cast<std::size_t>(rank)]; }

private:
  MPI_Comm node_ = MPI_COMM_NULL;
  std::vector<int> node_rank_;
};

class ShmChannels {
public:
  struct Spec {
    int peer;  // rank in comm, on this node
    int tag;
    std::size_t bytes;
  };

  // Collective over the node. `numa_node` >= 0 places this rank's window memory on that NUMA node.
  ShmChannels(MPI_Comm comm, const NodeInfo& node, const std::vector<Spec>& sends, const std::vector<Spec>& receives,
              int numa_node);
  ShmChannels(const ShmChannels&) = delete;
  ShmChannels& operator=(const ShmChannels&) = delete;
  ~ShmChannels();

  // Sender: the buffer of send channel c for message `seq` (1, 2, ...), once the receiver has read
  // message seq - 2 from it; then publish() makes it visible.
  void* send_buffer(std::size_t c, std::int64_t seq);
  void publish(std::size_t c, std::int64_t seq);
  // Receiver: waits until message `seq` of receive channel c is published; consumed() hands the
  // buffer back.
  const void* receive(std::size_t c, std::int64_t seq);
  void consumed(std::size_t c, std::int64_t seq);

private:
  struct Channel {
    std::int64_t* flag;  // last published sequence number (written by the sender)
    std::int64_t* ack;   // last consumed sequence number (written by the receiver)
    char* data[2];
  };
  MPI_Win win_ = MPI_WIN_NULL;
  std::vector<Channel> sends_, receives_;
};

}  // namespace ripple::proxy
