// Requests that share one handle under the tracer: N receives from MPI_PROC_NULL (Open MPI hands
// out one complete request object for all of them), then one MPI_Waitall. Prints the time per
// request of the posting and of the Waitall: flat in N when the tracer's request table is linear
// (before: 32 000 took 2.6 s to post and 6 s to wait). Run it with and without `ripple trace`.
// usage: ripple_trace_requests N [N...]
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  for (int a = 1; a < argc; ++a) {
    const int n = std::atoi(argv[a]);
    std::vector<MPI_Request> requests(static_cast<std::size_t>(n));
    std::vector<char> buffer(1);
    const double t0 = MPI_Wtime();
    for (auto& r : requests) MPI_Irecv(buffer.data(), 1, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r);
    const double t1 = MPI_Wtime();
    MPI_Waitall(n, requests.data(), MPI_STATUSES_IGNORE);
    const double t2 = MPI_Wtime();
    std::printf("%d requests: post %.1f ns each, waitall %.1f ns each\n", n, (t1 - t0) / n * 1e9, (t2 - t1) / n * 1e9);
  }
  MPI_Finalize();
  return 0;
}
