// The tracer's recording path without the interconnect: one rank calls MPI_Send and MPI_Recv with
// MPI_PROC_NULL as the peer, which MPI completes at once, so that the difference to the same binary
// untraced is what the tracer adds per call (roles, timestamps, record, spool), with little of the
// noise a ping-pong between two busy cores has. Prints JSON: ns per call, the median of `rounds`.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long calls = argc > 1 ? std::atol(argv[1]) : 1000000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 9;
  double v = 0;
  std::vector<double> ns;
  for (int r = 0; r < rounds; ++r) {
    const double t0 = MPI_Wtime();
    for (long k = 0; k < calls / 2; ++k) {
      MPI_Send(&v, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
      MPI_Recv(&v, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    ns.push_back((MPI_Wtime() - t0) / static_cast<double>(calls / 2 * 2) * 1e9);
  }
  std::sort(ns.begin(), ns.end());
  MPI_Finalize();
  std::printf("{\"calls\": %ld, \"rounds\": %d, \"ns_per_call\": %.2f, \"min\": %.2f, \"max\": %.2f}\n", calls, rounds,
              ns[ns.size() / 2], ns.front(), ns.back());
  return 0;
}
