// The floor under the tracer's ping-pong cost, without MPI and without the tracer: two threads on
// two cores pass a cache line back and forth (as MPI's shared-memory transport does), and each
// "call" (a store, or the wait for the other's store) is bracketed as the tracer brackets a call:
// plain; with an rdtsc before and after; and with those plus an 88-byte record into a 64 MiB ring.
// Prints the median of the repeats, ns per call, as the ping-pong bench counts them (two per round
// trip on each side).
#include <pthread.h>
#include <x86intrin.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

struct Record {  // the tracer's event: 88 bytes
  double t_enter = 0, t_exit = 0;
  std::uint64_t words[5] = {};
  std::int32_t ints[8] = {};
};
static_assert(sizeof(Record) == 88);

enum class Bracket { none, clocks, clocks_and_record };

alignas(64) std::atomic<std::uint64_t> g_turn{0};

void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

// What one side adds around each call.
class Side {
public:
  explicit Side(Bracket b) : bracket_(b), ring_(b == Bracket::clocks_and_record ? (std::size_t{64} << 20) / sizeof(Record) : 1) {}
  std::uint64_t enter() const { return bracket_ == Bracket::none ? 0 : __rdtsc(); }
  void exit(std::uint64_t t_enter, std::int32_t call) {
    if (bracket_ == Bracket::none) return;
    const std::uint64_t t_exit = __rdtsc();
    if (bracket_ == Bracket::clocks) {
      asm volatile("" ::"r"(t_exit));
      return;
    }
    Record& r = ring_[head_++ % ring_.size()];
    r = Record{};
    r.t_enter = static_cast<double>(t_enter);
    r.t_exit = static_cast<double>(t_exit);
    r.ints[0] = call;
  }

private:
  Bracket bracket_;
  std::vector<Record> ring_;  // 64 MiB with records, like the tracer's default
  std::uint64_t head_ = 0;
};

void send(Side& side, std::uint64_t value) {
  const std::uint64_t t = side.enter();
  g_turn.store(value, std::memory_order_release);
  side.exit(t, 1);
}

void receive(Side& side, std::uint64_t value) {
  const std::uint64_t t = side.enter();
  while (g_turn.load(std::memory_order_acquire) != value) _mm_pause();
  side.exit(t, 2);
}

double ns_per_call(Bracket bracket, long round_trips) {
  g_turn = 0;
  std::thread other([&] {
    pin(1);
    Side side(bracket);
    for (long k = 0; k < round_trips; ++k) {
      receive(side, 2 * static_cast<std::uint64_t>(k) + 1);
      send(side, 2 * static_cast<std::uint64_t>(k) + 2);
    }
  });
  pin(0);
  Side side(bracket);
  timespec a{}, b{};
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (long k = 0; k < round_trips; ++k) {
    send(side, 2 * static_cast<std::uint64_t>(k) + 1);
    receive(side, 2 * static_cast<std::uint64_t>(k) + 2);
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  other.join();
  return (static_cast<double>(b.tv_sec - a.tv_sec) * 1e9 + static_cast<double>(b.tv_nsec - a.tv_nsec)) /
         (2.0 * static_cast<double>(round_trips));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const long round_trips = argc > 1 ? std::atol(argv[1]) : 2000000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 7;
  std::vector<double> plain, clocks, record;
  for (int r = 0; r < repeats; ++r) {  // alternated, so that all three see the same machine
    const double p = ns_per_call(Bracket::none, round_trips);
    clocks.push_back(ns_per_call(Bracket::clocks, round_trips) - p);
    record.push_back(ns_per_call(Bracket::clocks_and_record, round_trips) - p);
    plain.push_back(p);
  }
  std::printf(
      "{\"round_trips\": %ld, \"repeats\": %d, \"plain_ns_per_call\": %.1f, \"clocks_added_ns\": %.1f, "
      "\"clocks_and_record_added_ns\": %.1f}\n",
      round_trips, repeats, median(plain), median(clocks), median(record));
  return 0;
}
