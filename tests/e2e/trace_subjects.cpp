// Small MPI programs for the tracer tests (they know nothing of the tracer):
//   anysource: every rank sends rank 0 two messages; rank 0 receives them with MPI_ANY_SOURCE,
//              once through MPI_Irecv + MPI_Waitany and once through MPI_Recv.
//   split:     MPI_Comm_split by parity; in each half, local rank 1 sends to local rank 0.
//   threads:   MPI_THREAD_MULTIPLE, two threads per rank exchange `n` messages with the partner
//              rank concurrently (tag = thread).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

int anysource(int rank, int size) {
  if (rank == 0) {
    std::vector<int> in(static_cast<std::size_t>(size));
    std::vector<MPI_Request> req(static_cast<std::size_t>(size - 1));
    for (int k = 0; k < size - 1; ++k)
      MPI_Irecv(&in[static_cast<std::size_t>(k)], 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD,
                &req[static_cast<std::size_t>(k)]);
    for (int k = 0; k < size - 1; ++k) {
      int index = 0;
      MPI_Status st;
      MPI_Waitany(size - 1, req.data(), &index, &st);
    }
    for (int k = 0; k < size - 1; ++k) {
      int v = 0;
      MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  } else {
    MPI_Send(&rank, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    MPI_Send(&rank, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
  }
  return 0;
}

int split(int rank) {
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int local = 0;
  MPI_Comm_rank(half, &local);
  double v = rank;
  if (local == 1) MPI_Send(&v, 1, MPI_DOUBLE, 0, 7, half);
  if (local == 0) MPI_Recv(&v, 1, MPI_DOUBLE, 1, 7, half, MPI_STATUS_IGNORE);
  MPI_Comm_free(&half);
  return 0;
}

int threads(int rank, int size, int n) {
  const int partner = rank ^ 1;
  if (partner >= size) return 0;
  auto work = [&](int tag) {
    for (int k = 0; k < n; ++k) {
      int out = k, in = -1;
      MPI_Request req[2];
      MPI_Irecv(&in, 1, MPI_INT, partner, tag, MPI_COMM_WORLD, &req[0]);
      MPI_Isend(&out, 1, MPI_INT, partner, tag, MPI_COMM_WORLD, &req[1]);
      MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
      if (in != k) std::abort();
    }
  };
  std::thread a(work, 10), b(work, 11);
  a.join();
  b.join();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  int provided = 0;
  MPI_Init_thread(&argc, &argv, std::strcmp(mode, "threads") == 0 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rc = 2;
  if (std::strcmp(mode, "anysource") == 0)
    rc = anysource(rank, size);
  else if (std::strcmp(mode, "split") == 0)
    rc = split(rank);
  else if (std::strcmp(mode, "threads") == 0) {
    if (provided < MPI_THREAD_MULTIPLE) {
      if (rank == 0) std::fprintf(stderr, "MPI_THREAD_MULTIPLE not provided\n");
      rc = 3;
    } else {
      rc = threads(rank, size, argc > 2 ? std::atoi(argv[2]) : 1000);
    }
  }
  MPI_Finalize();
  return rc;
}
