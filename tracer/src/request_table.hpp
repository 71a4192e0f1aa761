#pragma once
// Open-addressing table from MPI_Request handles to the ids the tracer gave them (preallocated: no
// allocation on the hot path). Callers hold the recorder lock.
//
// One handle may stand for several requests at once: an MPI may hand out one shared, already
// complete request object for operations that completed at once (Open MPI does for MPI_Ibsend and
// for sends to MPI_PROC_NULL). Each such request keeps its own entry, in the order they were made,
// so that each completion is told apart: the nth use of a handle in one call is its nth oldest
// entry.
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
  explicit RequestTable(std::size_t capacity = 1 << 16) : slots_(capacity) {}
  // False when full (the request is then untracked; its completion records id -1). `shared`: set
  // when the handle already had entries.
  bool insert(const RequestInfo& info, bool* shared = nullptr);
  // The nth oldest entry of the handle, or null.
  [[nodiscard]] const RequestInfo* find(std::uintptr_t handle, int nth = 0) const;
  [[nodiscard]] RequestInfo* find(std::uintptr_t handle, int nth = 0) {
    return const_cast<RequestInfo*>(static_cast<const RequestTable&>(*this).find(handle, nth));
  }
  // A persistent request started (true) or completed (false); unknown handles are ignored.
  void set_active(std::uintptr_t handle, bool active) {
    if (RequestInfo* r = find(handle)) r->active = active;
  }
  void erase(std::uintptr_t handle);  // its oldest entry
  // Erases the handle's entry for request `id`, if it still has one.
  void erase_if(std::uintptr_t handle, std::int64_t id);
  [[nodiscard]] std::int64_t untracked() const { return untracked_; }
  [[nodiscard]] std::size_t size() const { return used_; }

private:
  [[nodiscard]] std::size_t home(std::uintptr_t h) const { return (h * 0x9e3779b97f4a7c15ULL >> 17) % slots_.size(); }
  void erase_slot(std::size_t i);
  std::vector<RequestInfo> slots_;
  std::size_t used_ = 0;
  std::int64_t untracked_ = 0;
};

}  // namespace ripple::trace::detail
