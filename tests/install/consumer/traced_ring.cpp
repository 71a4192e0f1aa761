// A ring of ranks passing one integer per iteration, each iteration marked for the tracer
// (ripple/common/pcontrol.hpp); traced because it links Ripple::trace, with no preload.
// The trace goes to $RIPPLE_TRACE_OUTPUT (default ripple-trace.h5).
#include <mpi.h>

#include <cstdio>

#include "ripple/common/pcontrol.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iterations = 5;
  int token = 0, sum = 0;
  for (int i = 0; i < iterations; ++i) {
    MPI_Pcontrol(ripple::kPcontrolIteration, i);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int received = -1;
    token = rank + i;
    MPI_Sendrecv(&token, 1, MPI_INT, right, 7, &received, 1, MPI_INT, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    sum += received;
  }
  MPI_Pcontrol(ripple::kPcontrolLoopEnd);
  // Validation: rank r received left + i in iteration i.
  const int left = (rank + size - 1) % size;
  const int want = iterations * left + iterations * (iterations - 1) / 2;
  int ok = sum == want ? 1 : 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) std::printf("traced_ring: %d ranks, %d iterations, %s\n", size, iterations, all_ok ? "passed" : "FAILED");
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
