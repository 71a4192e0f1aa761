// The Scope functions that read a call's arguments (recorder.hpp): v- and all-to-all buffers, peers
// translated to world ranks, the sender and bytes of a probe or matched receive, windows and files.
#include <mpi.h>

#include <algorithm>
#include <cstdint>

#include "recorder.hpp"
#include "recorder_state.hpp"

namespace ripple::trace {

using detail::g_state;
using detail::Guard;
using detail::State;
using detail::status_bytes;

namespace {
// The members a collective on `comm` exchanges with (Scope::Over).
int members(MPI_Comm comm, Scope::Over over) {
  int n = 0;
  if (over == Scope::Over::neighbors) {
    int topology = MPI_UNDEFINED;
    PMPI_Topo_test(comm, &topology);
    if (topology == MPI_CART) {
      PMPI_Cartdim_get(comm, &n);
      n *= 2;
    } else if (topology == MPI_GRAPH) {
      int me = 0;
      PMPI_Comm_rank(comm, &me);
      PMPI_Graph_neighbors_count(comm, me, &n);
    } else if (topology == MPI_DIST_GRAPH) {
      int in = 0, weighted = 0;
      PMPI_Dist_graph_neighbors_count(comm, &in, &n, &weighted);
    }
  } else {
    int inter = 0;
    if (over == Scope::Over::peers) PMPI_Comm_test_inter(comm, &inter);
    if (inter != 0)
      PMPI_Comm_remote_size(comm, &n);
    else
      PMPI_Comm_size(comm, &n);
  }
  return n;
}
}  // namespace

void Scope::buffer_each(const void* buf, int count, MPI_Datatype type, MPI_Comm comm, Over over) {
  if (buf == MPI_IN_PLACE || type == MPI_DATATYPE_NULL || comm == MPI_COMM_NULL) return;
  const std::int64_t total = std::int64_t{count} * members(comm, over);
  const detail::DatatypeCache& t = detail::datatype(type);
  event_.count = static_cast<std::int32_t>(std::min<std::int64_t>(total, INT32_MAX));
  event_.buffer = reinterpret_cast<std::uint64_t>(buf);
  event_.bytes = total * t.size;
  event_.extent = total * t.extent;
}

void Scope::buffer_v(const void* buf, const int counts[], const int displs[], MPI_Datatype type, MPI_Comm comm, Over over) {
  if (buf == MPI_IN_PLACE || counts == nullptr || type == MPI_DATATYPE_NULL || comm == MPI_COMM_NULL) return;
  const int n = members(comm, over);
  std::int64_t total = 0, end = 0;
  for (int i = 0; i < n; ++i) {
    total += counts[i];
    end = std::max<std::int64_t>(end, (displs != nullptr ? displs[i] : total - counts[i]) + std::int64_t{counts[i]});
  }
  const detail::DatatypeCache& t = detail::datatype(type);
  event_.count = static_cast<std::int32_t>(std::min<std::int64_t>(total, INT32_MAX));
  event_.buffer = reinterpret_cast<std::uint64_t>(buf);
  event_.bytes = total * t.size;
  event_.extent = end * t.extent;
}

void Scope::buffer_own(const void* buf, const int counts[], MPI_Datatype type, MPI_Comm comm) {
  int me = 0;
  if (counts == nullptr || comm == MPI_COMM_NULL || PMPI_Comm_rank(comm, &me) != MPI_SUCCESS) return;
  buffer(buf, counts[me], type);
}

void Scope::translate_peer(int rank, MPI_Comm c) {
  if (rank == MPI_ANY_SOURCE) {
    event_.peer = -2;
    return;
  }
  if (rank == MPI_ROOT) {  // the root of an intercommunicator collective: this rank itself
    event_.peer = detail::g_recording.rank;
    event_.same_node = 1;
    return;
  }
  if (rank == MPI_PROC_NULL || rank < 0) {
    event_.peer = -3;
    return;
  }
  const int world = detail::world_rank(event_.comm >= 0 ? event_.comm : detail::comm_id(c), rank);
  event_.peer = world;
  event_.same_node = detail::same_node(world);
}

void Scope::resolve_source(const MPI_Status* status, MPI_Comm c) {
  if (!recording_ || status == nullptr || status->MPI_SOURCE < 0) return;  // MPI_PROC_NULL's status says nothing
  if (event_.peer == -2) peer(status->MPI_SOURCE, c);                      // the actual sender of an MPI_ANY_SOURCE receive
  if (event_.tag == MPI_ANY_TAG) event_.tag = status->MPI_TAG;             // and the actual tag of an MPI_ANY_TAG one
  // A probe has no buffer: the pending message's bytes. A receive keeps count x size, as every call
  // does, whichever source it named (its completion-free form costs no status read per call).
  if (event_.buffer == 0 && event_.count == 0) event_.bytes = status_bytes(status);
}

void Scope::probed(const MPI_Message* message) {
  if (!recording_ || message == nullptr || *message == MPI_MESSAGE_NULL || *message == MPI_MESSAGE_NO_PROC) return;
  State& s = *g_state;
  const Guard guard(s);
  s.messages.emplace_back(reinterpret_cast<std::uintptr_t>(*message), event_.comm);  // room reserved at MPI_Init
}

void Scope::taking(const MPI_Message* message) {
  if (!recording_ || message == nullptr || *message == MPI_MESSAGE_NULL) return;
  if (*message == MPI_MESSAGE_NO_PROC) {
    event_.peer = -3;  // a probe of MPI_PROC_NULL's
    return;
  }
  State& s = *g_state;
  const Guard guard(s);
  const auto handle = reinterpret_cast<std::uintptr_t>(*message);
  const auto it = std::find_if(s.messages.begin(), s.messages.end(), [&](const auto& m) { return m.first == handle; });
  if (it == s.messages.end()) return;  // probed by a call the tracer did not record
  event_.comm = it->second;
  *it = s.messages.back();
  s.messages.pop_back();
}

void Scope::received_message(const MPI_Status* status) {
  if (!recording_ || status == nullptr || event_.peer == -3) return;
  if (event_.comm >= 0 && status->MPI_SOURCE >= 0) {
    event_.peer = detail::world_rank(event_.comm, status->MPI_SOURCE);
    event_.same_node = detail::same_node(event_.peer);
  }
  event_.tag = status->MPI_TAG;  // a matched receive names no tag: the message's
  event_.bytes = status_bytes(status);
}

void Scope::window(MPI_Win w) { event_.comm = detail::window_comm(w); }

void Scope::file(MPI_File f) { event_.comm = detail::file_comm(f); }

void Scope::transferred(const MPI_Status* status) {
  if (!recording_ || status == nullptr) return;
  if (const std::int64_t moved = status_bytes(status); moved >= 0) event_.bytes = moved;
}

void Scope::window_peer(int target) {
  if (event_.comm < 0) {
    event_.peer = -1;  // a window made by a call the tracer does not wrap
    return;
  }
  peer(target, MPI_COMM_NULL);
}

}  // namespace ripple::trace
