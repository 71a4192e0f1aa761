// The tracer's recording path without the interconnect: one rank makes calls that MPI completes at
// once, so that the difference to the same binary untraced is what the tracer adds per call (roles,
// timestamps, record, spool), with little of the noise a ping-pong between two busy cores has.
//   ripple_trace_hotpath [CALLS] [ROUNDS] [sendrecv|test|iprobe]
// sendrecv: MPI_Send and MPI_Recv with MPI_PROC_NULL peers; test: MPI_Test on MPI_REQUEST_NULL;
// iprobe: MPI_Iprobe on MPI_PROC_NULL (the loops of issue 28's measurement: a polling loop is the
// cheapest call a program makes, so the tracer's share of it is largest). Prints JSON: ns per call,
// the median of `rounds`.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long calls = argc > 1 ? std::atol(argv[1]) : 1000000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 9;
  const char* kind = argc > 3 ? argv[3] : "sendrecv";
  if (std::strcmp(kind, "sendrecv") != 0 && std::strcmp(kind, "test") != 0 && std::strcmp(kind, "iprobe") != 0) {
    std::fprintf(stderr, "ripple_trace_hotpath: unknown kind '%s': sendrecv, test or iprobe\n", kind);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double v = 0;
  int flag = 0;
  std::vector<double> ns;
  for (int r = 0; r < rounds; ++r) {
    const double t0 = MPI_Wtime();
    if (kind[0] == 's') {
      for (long k = 0; k < calls / 2; ++k) {
        MPI_Send(&v, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    } else if (kind[0] == 't') {
      for (long k = 0; k < calls / 2 * 2; ++k) {
        MPI_Request request = MPI_REQUEST_NULL;
        MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
      }
    } else {
      for (long k = 0; k < calls / 2 * 2; ++k) MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    ns.push_back((MPI_Wtime() - t0) / static_cast<double>(calls - calls % 2) * 1e9);
  }
  std::sort(ns.begin(), ns.end());
  MPI_Finalize();
  std::printf("{\"kind\": \"%s\", \"calls\": %ld, \"rounds\": %d, \"ns_per_call\": %.2f, \"min\": %.2f, \"max\": %.2f}\n", kind,
              calls, rounds, ns[ns.size() / 2], ns.front(), ns.back());
  return 0;
}
