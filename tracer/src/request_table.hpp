#pragma once
// Open-addressing table from MPI_Request handles to the ids the tracer gave them (preallocated: no
// allocation on the hot path). Callers hold the recorder lock.
#include <mpi.h>

#include <cstdint>
#include <vector>

namespace ripple::trace::detail {

struct RequestInfo {
  std::uintptr_t handle = 0;  // 0: empty slot
  std::int64_t id = -1;
  int comm = -1;  // communicator id
  bool receive = false;
  bool persistent = false;
  bool active = false;  // persistent: started and not yet completed
};

class RequestTable {
public:
  explicit RequestTable(std::size_t capacity = 1 << 16) : slots_(capacity) {}
  // False when full (the request is then untracked; its completion records id -1).
  bool insert(const RequestInfo& info);
  [[nodiscard]] const RequestInfo* find(std::uintptr_t handle) const;
  // A persistent request started (true) or completed (false); unknown handles are ignored.
  void set_active(std::uintptr_t handle, bool active) {
    if (const RequestInfo* r = find(handle)) const_cast<RequestInfo*>(r)->active = active;
  }
  void erase(std::uintptr_t handle);
  // Erases only if the handle still maps to request `id` (another thread may have reused it).
  void erase_if(std::uintptr_t handle, std::int64_t id) {
    const RequestInfo* r = find(handle);
    if (r != nullptr && r->id == id) erase(handle);
  }
  [[nodiscard]] std::int64_t untracked() const { return untracked_; }

private:
  [[nodiscard]] std::size_t home(std::uintptr_t h) const { return (h * 0x9e3779b97f4a7c15ULL >> 17) % slots_.size(); }
  std::vector<RequestInfo> slots_;
  std::size_t used_ = 0;
  std::int64_t untracked_ = 0;
};

}  // namespace ripple::trace::detail
