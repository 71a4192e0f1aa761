#include "request_table.hpp"

namespace ripple::trace::detail {

bool RequestTable::insert(const RequestInfo& info, bool* shared) {
  if (info.handle == 0) return false;
  if (used_ + 1 >= slots_.size() * 3 / 4) {
    ++untracked_;
    return false;
  }
  // After every entry of its probe chain: entries of one handle stay in the order they were made.
  std::size_t i = home(info.handle);
  bool seen = false;
  for (; slots_[i].handle != 0; i = (i + 1) % slots_.size()) seen = seen || slots_[i].handle == info.handle;
  if (shared != nullptr) *shared = seen;
  slots_[i] = info;
  ++used_;
  return true;
}

const RequestInfo* RequestTable::find(std::uintptr_t handle, int nth) const {
  std::size_t i = home(handle);
  while (slots_[i].handle != 0) {
    if (slots_[i].handle == handle && nth-- == 0) return &slots_[i];
    i = (i + 1) % slots_.size();
  }
  return nullptr;
}

void RequestTable::erase(std::uintptr_t handle) {
  if (const RequestInfo* r = find(handle)) erase_slot(static_cast<std::size_t>(r - slots_.data()));
}

void RequestTable::erase_if(std::uintptr_t handle, std::int64_t id) {
  std::size_t i = home(handle);
  while (slots_[i].handle != 0) {
    if (slots_[i].handle == handle && slots_[i].id == id) {
      erase_slot(i);
      return;
    }
    i = (i + 1) % slots_.size();
  }
}

void RequestTable::erase_slot(std::size_t i) {
  // Backward-shift deletion keeps every later entry reachable from its home slot, and the entries
  // of one handle in their order.
  std::size_t hole = i;
  for (std::size_t j = (i + 1) % slots_.size(); slots_[j].handle != 0; j = (j + 1) % slots_.size()) {
    const std::size_t h = home(slots_[j].handle);
    const bool movable = hole <= j ? (h <= hole || h > j) : (h <= hole && h > j);
    if (movable) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole] = RequestInfo{};
  --used_;
}

}  // namespace ripple::trace::detail
