#pragma once
// The memory behind the recorder's ring of events: a power of two of slots, mapped with transparent
// huge pages where the kernel grants them and touched at once, so that the hot path never takes a
// page fault and walks few TLB entries.
#include <sys/mman.h>

#include <cstddef>
#include <new>

#include "ripple/trace/event.hpp"

namespace ripple::trace::detail {

class EventRing {
public:
  EventRing() = default;
  EventRing(const EventRing&) = delete;
  EventRing& operator=(const EventRing&) = delete;
  ~EventRing() { release(); }

  // `slots` events (a power of two); throws std::bad_alloc if the memory cannot be mapped.
  void allocate(std::size_t slots) {
    release();
    bytes_ = slots * sizeof(Event);
    void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    ::madvise(p, bytes_, MADV_HUGEPAGE);  // a hint: without THP the ring works on small pages
    auto* bytes = static_cast<volatile char*>(p);
    for (std::size_t at = 0; at < bytes_; at += 4096) bytes[at] = 0;  // fault it in now, not while recording
    events_ = static_cast<Event*>(p);
    slots_ = slots;
  }
  [[nodiscard]] Event* data() { return events_; }
  [[nodiscard]] const Event* data() const { return events_; }
  [[nodiscard]] std::size_t size() const { return slots_; }
  Event& operator[](std::size_t k) { return events_[k]; }
  const Event& operator[](std::size_t k) const { return events_[k]; }

private:
  void release() {
    if (events_ != nullptr) ::munmap(events_, bytes_);
    events_ = nullptr;
    slots_ = bytes_ = 0;
  }
  Event* events_ = nullptr;
  std::size_t slots_ = 0, bytes_ = 0;
};

}  // namespace ripple::trace::detail
