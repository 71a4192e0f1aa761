#include "request_table.hpp"

namespace ripple::trace::detail {

bool RequestTable::insert(const RequestInfo& info) {
  if (info.handle == 0) return false;
  if (used_ + 1 >= slots_.size() * 3 / 4) {
    ++untracked_;
    return false;
  }
  std::size_t i = home(info.handle);
  while (slots_[i].handle != 0 && slots_[i].handle != info.handle) i = (i + 1) % slots_.size();
  if (slots_[i].handle == 0) ++used_;
  slots_[i] = info;
  return true;
}

const RequestInfo* RequestTable::find(std::uintptr_t handle) const {
  std::size_t i = home(handle);
  while (slots_[i].handle != 0) {
    if (slots_[i].handle == handle) return &slots_[i];
    i = (i + 1) % slots_.size();
  }
  return nullptr;
}

void RequestTable::erase(std::uintptr_t handle) {
  std::size_t i = home(handle);
  while (slots_[i].handle != 0 && slots_[i].handle != handle) i = (i + 1) % slots_.size();
  if (slots_[i].handle == 0) return;
  // Backward-shift deletion keeps every later entry reachable from its home slot.
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
