#pragma once
// Two loops' events, as a rank's recorder would make them, for the event blocks' unit tests and the
// encoder's benchmark (bench/event_encoder.cpp): one generator each, so that the bench measures the
// events the tests hold to their byte counts.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ripple/trace/event.hpp"

namespace ripple::trace::test_events {

// A ping-pong's events: Send and Recv alternating, times advancing by a few hundred ticks.
inline std::vector<Event> ping_pong(std::size_t n) {
  std::vector<Event> events(n);
  double t = 1e6;
  for (std::size_t k = 0; k < n; ++k) {
    Event& e = events[k];
    e.call = k % 2 == 0 ? 3 : 7;
    e.peer = 1;
    e.tag = 0;
    e.comm = 0;
    e.bytes = e.extent = 8;
    e.count = 1;
    e.buffer = 0x7ffd00001000;
    e.call_site = k % 2 == 0 ? 0x401234 : 0x401250;
    e.same_node = 1;
    e.rank = 0;
    e.iteration = static_cast<std::int32_t>(k / 500);
    t += 300 + static_cast<double>(k % 13);
    e.t_enter = t;
    t += 150 + static_cast<double>(k % 7);
    e.t_exit = t;
  }
  return events;
}

// A 2D stencil's halo exchange: per iteration Irecv and Isend to each of `neighbours` (each its own
// peer and buffer, every call its own request) and a Waitall.
inline std::vector<Event> halo_exchange(std::size_t iterations, int neighbours) {
  std::vector<Event> events;
  double t = 1e6;
  std::int64_t request = 0;
  for (std::size_t i = 0; i < iterations; ++i) {
    for (int kind = 0; kind < 2; ++kind)
      for (int n = 0; n < neighbours; ++n) {
        Event e;
        e.call = kind == 0 ? 13 : 8;
        e.peer = 100 + 7 * n;
        e.tag = n;
        e.comm = 0;
        e.bytes = e.extent = 8 * (1000 + n % 2);
        e.count = 1000 + n % 2;
        e.buffer = 0x7f0000000000 + 0x100000 * static_cast<std::uint64_t>(kind) + 0x10000 * static_cast<std::uint64_t>(n);
        e.request = request++;
        e.call_site = kind == 0 ? 0x401000 : 0x401100;
        e.same_node = n % 2;
        e.iteration = static_cast<std::int32_t>(i);
        e.t_enter = t += 90 + static_cast<double>(n);
        e.t_exit = t += 40;
        events.push_back(e);
      }
    Event w;
    w.call = 29;
    w.count = 2 * neighbours;
    w.call_site = 0x401200;
    w.iteration = static_cast<std::int32_t>(i);
    w.t_enter = t += 80;
    w.t_exit = t += 2500 + static_cast<double>(i % 17);
    events.push_back(w);
    t += 30000;
  }
  return events;
}

}  // namespace ripple::trace::test_events
