#pragma once
// A table from MPI_Request handles to the ids the tracer gave them (preallocated: no allocation on
// the hot path). Callers hold the recorder lock.
//
// One handle may stand for several requests at once: an MPI may hand out one shared, already
// complete request object for operations that completed at once (Open MPI does for small eager
// sends and receives from MPI_PROC_NULL). Each such request keeps its own entry, in the order they
// were made, so that each completion is told apart: the nth use of a handle in one call is its nth
// oldest entry. Handles sit in an open-addressing table, each with a list of its entries in a
// preallocated pool: 10^5 requests behind one handle cost the same per call as 10^5 handles (a
// probe chain per entry made it quadratic: 32 000 took 2.6 s to post and 6 s in MPI_Waitall).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ripple::trace::detail {

struct RequestInfo {
  std::uintptr_t handle = 0;  // 0: empty slot
  std::int64_t id = -1;
  int comm = -1;  // communicator id
  bool receive = false;
  bool file_access = false;  // MPI-IO: its completion's status gives the bytes moved
  bool persistent = false;
  bool active = false;      // persistent: started and not yet completed
  bool cancelling = false;  // MPI_Cancel was called on it
};

class RequestTable {
public:
  // Room for capacity * 3/4 - 1 requests.
  explicit RequestTable(std::size_t capacity = 1 << 16);
  // False when full (the request is then untracked; its completion records id -1). `shared`: set
  // when the handle already had entries.
  bool insert(const RequestInfo& info, bool* shared = nullptr);
  // The nth oldest entry of the handle, or null (O(nth)).
  [[nodiscard]] const RequestInfo* find(std::uintptr_t handle, int nth = 0) const;
  [[nodiscard]] RequestInfo* find(std::uintptr_t handle, int nth = 0) {
    return const_cast<RequestInfo*>(static_cast<const RequestTable&>(*this).find(handle, nth));
  }
  // One call's requests in order, O(1) each: after new_round(), next_in_round(h) is h's oldest entry
  // not yet given in this round (null when none is left).
  void new_round() { ++round_; }
  [[nodiscard]] const RequestInfo* next_in_round(std::uintptr_t handle);
  // A persistent request started (true) or completed (false); unknown handles are ignored.
  void set_active(std::uintptr_t handle, bool active) {
    if (RequestInfo* r = find(handle)) r->active = active;
  }
  void erase(std::uintptr_t handle);  // its oldest entry
  // Erases the handle's entry for request `id`, if it still has one (O(1) for the oldest).
  void erase_if(std::uintptr_t handle, std::int64_t id);
  [[nodiscard]] std::int64_t untracked() const { return untracked_; }
  [[nodiscard]] std::size_t size() const { return used_; }

private:
  static constexpr std::int32_t kNone = -1;
  struct Slot {
    std::uintptr_t handle = 0;  // 0: empty
    std::int32_t head = kNone, tail = kNone;
    std::uint64_t round = 0;  // next_in_round: the round `cursor` belongs to
    std::int32_t cursor = kNone;
  };
  struct Node {
    RequestInfo info;
    std::int32_t next = kNone;
  };
  [[nodiscard]] std::size_t home(std::uintptr_t h) const { return (h * 0x9e3779b97f4a7c15ULL >> 17) % slots_.size(); }
  [[nodiscard]] std::size_t slot_of(std::uintptr_t handle) const;  // its slot, or the empty one that ends its chain
  void unlink(std::size_t slot, std::int32_t previous, std::int32_t node);
  void erase_slot(std::size_t i);
  std::vector<Slot> slots_;
  std::vector<Node> nodes_;
  std::int32_t free_ = kNone;  // the free nodes, linked through next
  std::size_t used_ = 0;
  std::int64_t untracked_ = 0;
  std::uint64_t round_ = 0;
};

}  // namespace ripple::trace::detail
