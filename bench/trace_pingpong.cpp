// Two-rank ping-pong for the tracer's overhead: `iterations` round trips of 8-byte MPI_Send/MPI_Recv.
// Prints JSON with the loop's seconds and MPI_Finalize's (where the tracer writes its file).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long iterations = argc > 1 ? std::atol(argv[1]) : 1000000;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double v = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (long k = 0; k < iterations; ++k) {
    if (rank == 0) {
      MPI_Send(&v, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(&v, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(&v, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&v, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }
  }
  const double loop = MPI_Wtime() - t0;
  const double f0 = MPI_Wtime();
  MPI_Finalize();
  const double fin = MPI_Wtime() - f0;  // MPI_Wtime works after MPI_Finalize
  if (rank == 0)
    std::printf("{\"iterations\": %ld, \"loop_seconds\": %.6f, \"finalize_seconds\": %.6f}\n", iterations, loop, fin);
  return 0;
}
