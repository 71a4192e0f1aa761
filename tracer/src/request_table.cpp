#include "request_table.hpp"

namespace ripple::trace::detail {

RequestTable::RequestTable(std::size_t capacity) : slots_(capacity), nodes_(capacity * 3 / 4 > 0 ? capacity * 3 / 4 - 1 : 0) {
  for (std::size_t k = nodes_.size(); k-- > 0;) {
    nodes_[k].next = free_;
    free_ = static_cast<std::int32_t>(k);
  }
}

std::size_t RequestTable::slot_of(std::uintptr_t handle) const {
  std::size_t i = home(handle);
  while (slots_[i].handle != 0 && slots_[i].handle != handle) i = (i + 1) % slots_.size();
  return i;
}

bool RequestTable::insert(const RequestInfo& info, bool* shared) {
  if (info.handle == 0) return false;
  if (free_ == kNone) {  // as many entries as handles at most: the slots never fill
    ++untracked_;
    return false;
  }
  const std::int32_t n = free_;
  free_ = nodes_[static_cast<std::size_t>(n)].next;
  nodes_[static_cast<std::size_t>(n)] = Node{info, kNone};
  Slot& s = slots_[slot_of(info.handle)];
  const bool seen = s.handle != 0;
  if (seen) {
    nodes_[static_cast<std::size_t>(s.tail)].next = n;  // the newest last: entries stay in the order made
  } else {
    s = Slot{};
    s.handle = info.handle;
    s.head = n;
  }
  s.tail = n;
  if (shared != nullptr) *shared = seen;
  ++used_;
  return true;
}

const RequestInfo* RequestTable::find(std::uintptr_t handle, int nth) const {
  const Slot& s = slots_[slot_of(handle)];
  if (s.handle == 0) return nullptr;
  std::int32_t n = s.head;
  while (n != kNone && nth-- > 0) n = nodes_[static_cast<std::size_t>(n)].next;
  return n == kNone ? nullptr : &nodes_[static_cast<std::size_t>(n)].info;
}

const RequestInfo* RequestTable::next_in_round(std::uintptr_t handle) {
  Slot& s = slots_[slot_of(handle)];
  if (s.handle == 0) return nullptr;
  if (s.round != round_) {  // none given yet in this round
    s.round = round_;
    s.cursor = kNone;
  }
  const std::int32_t n = s.cursor == kNone ? s.head : nodes_[static_cast<std::size_t>(s.cursor)].next;
  if (n == kNone) return nullptr;
  s.cursor = n;
  return &nodes_[static_cast<std::size_t>(n)].info;
}

void RequestTable::erase(std::uintptr_t handle) {
  const std::size_t i = slot_of(handle);
  if (slots_[i].handle != 0) unlink(i, kNone, slots_[i].head);
}

void RequestTable::erase_if(std::uintptr_t handle, std::int64_t id) {
  const std::size_t i = slot_of(handle);
  if (slots_[i].handle == 0) return;
  for (std::int32_t previous = kNone, n = slots_[i].head; n != kNone; previous = n, n = nodes_[static_cast<std::size_t>(n)].next)
    if (nodes_[static_cast<std::size_t>(n)].info.id == id) {
      unlink(i, previous, n);
      return;
    }
}

void RequestTable::unlink(std::size_t i, std::int32_t previous, std::int32_t n) {
  Slot& s = slots_[i];
  const std::int32_t next = nodes_[static_cast<std::size_t>(n)].next;
  if (previous == kNone)
    s.head = next;
  else
    nodes_[static_cast<std::size_t>(previous)].next = next;
  if (s.tail == n) s.tail = previous;
  if (s.cursor == n) s.cursor = previous;  // a round goes on with the entry after it
  nodes_[static_cast<std::size_t>(n)] = Node{RequestInfo{}, free_};
  free_ = n;
  --used_;
  if (s.head == kNone) erase_slot(i);
}

void RequestTable::erase_slot(std::size_t i) {
  // Backward-shift deletion keeps every later handle reachable from its home slot.
  std::size_t hole = i;
  for (std::size_t j = (i + 1) % slots_.size(); slots_[j].handle != 0; j = (j + 1) % slots_.size()) {
    const std::size_t h = home(slots_[j].handle);
    const bool movable = hole <= j ? (h <= hole || h > j) : (h <= hole && h > j);
    if (movable) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole] = Slot{};
}

}  // namespace ripple::trace::detail
