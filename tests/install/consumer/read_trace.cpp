// Reads traced_ring's trace with Ripple::trace_format and checks what the ring did: every rank
// made MPI_Sendrecv in each iteration 0..4 and in no other, to its right neighbour, tag 7, 4 bytes.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <set>

#include "ripple/trace/trace_reader.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: read_trace TRACE.h5 RANKS\n");
    return 2;
  }
  try {
    const ripple::trace::TraceReader trace(argv[1]);
    const int ranks = std::atoi(argv[2]);
    int errors = 0;
    if (trace.ranks() != ranks) {
      std::printf("ranks: %d, want %d\n", trace.ranks(), ranks);
      ++errors;
    }
    std::map<int, std::set<int>> iterations;  // rank -> iterations with a MPI_Sendrecv
    for (const auto& e : trace.events()) {
      if (trace.call_name(e.call) != "MPI_Sendrecv") continue;
      iterations[e.rank].insert(e.iteration);
      if (e.peer != (e.rank + 1) % ranks || e.tag != 7 || e.bytes != 4) {
        std::printf("rank %d: MPI_Sendrecv to %d, tag %d, %lld bytes\n", e.rank, e.peer, e.tag, static_cast<long long>(e.bytes));
        ++errors;
      }
    }
    const std::set<int> want = {0, 1, 2, 3, 4};
    for (int r = 0; r < ranks; ++r)
      if (iterations[r] != want) {
        std::printf("rank %d: MPI_Sendrecv in %zu iterations, want 0..4\n", r, iterations[r].size());
        ++errors;
      }
    std::printf("read_trace: %lld events of %d ranks, %s\n", static_cast<long long>(trace.event_count()), trace.ranks(),
                errors == 0 ? "as the ring made them" : "WRONG");
    return errors == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "read_trace: %s\n", e.what());
    return 1;
  }
}
