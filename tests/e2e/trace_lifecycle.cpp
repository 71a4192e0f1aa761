// Subjects for trace_lifecycle.sh: MPI programs that start, end and leave in the ways the tracer has
// to survive (modes: argv[1]).
#include <dirent.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

// Point-to-point traffic between neighbours for about `seconds`: events to spool while a second
// run starts, or while the run is killed.
void traffic(int rank, int size, double seconds) {
  const double until = MPI_Wtime() + seconds;
  int stop = 0;
  for (int it = 0; stop == 0; ++it) {
    MPI_Pcontrol(7701, it);
    int v = rank, got = 0;
    MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 3, &got, 1, MPI_INT, (rank + size - 1) % size, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    stop = MPI_Wtime() > until ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &stop, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    usleep(1000);
  }
}

// Entries of a /proc/self directory (descriptors, threads), less . and .. and the one opendir holds.
int entries(const char* dir) {
  DIR* d = opendir(dir);
  if (d == nullptr) return -1;
  int n = 0;
  while (const dirent* e = readdir(d)) n += e->d_name[0] != '.' ? 1 : 0;
  closedir(d);
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  int flag = -1;
  MPI_Initialized(&flag);
  if (flag != 0) return 20;
  MPI_Finalized(&flag);
  if (flag != 0) return 21;
  if (std::strcmp(mode, "atexit") == 0)  // MPI_Finalize from a handler registered before MPI_Init
    std::atexit([] { MPI_Finalize(); });
  int provided = -1;
  MPI_Init_thread(&argc, &argv, std::strcmp(mode, "thread-finalize") == 0 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rc = 0;
  if (std::strcmp(mode, "chdir") == 0 && argc > 2) {  // the output named relative to where the run started
    traffic(rank, size, 0.05);
    if (chdir(argv[2]) != 0) return 22;
  } else if (std::strcmp(mode, "traffic") == 0) {  // argv[2] seconds
    traffic(rank, size, argc > 2 ? std::atof(argv[2]) : 1);
  } else if (std::strcmp(mode, "exit") == 0) {  // exit code argv[2], after MPI_Finalize
    rc = argc > 2 ? std::atoi(argv[2]) : 3;
  } else if (std::strcmp(mode, "thread-finalize") == 0) {
    traffic(rank, size, 0.05);
    if (provided != MPI_THREAD_MULTIPLE) return 23;
    int finalized = 0;
    std::thread other([&] {
      MPI_Finalize();
      MPI_Finalized(&finalized);
    });
    other.join();
    return finalized != 0 ? 0 : 24;
  } else if (std::strcmp(mode, "atexit") == 0) {
    traffic(rank, size, 0.05);
    return 0;
  } else if (std::strcmp(mode, "abort") == 0) {  // rank argv[2] aborts while the others wait in a barrier
    traffic(rank, size, 0.05);
    if (rank == (argc > 2 ? std::atoi(argv[2]) : 0)) {
      usleep(200000);
      MPI_Abort(MPI_COMM_WORLD, 9);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (std::strcmp(mode, "system") == 0 && argc > 2) {  // a helper process, traced or not: argv[2] is its command
    traffic(rank, size, 0.05);
    rc = std::system(argv[2]) == 0 ? 0 : 27;
  }
  MPI_Finalize();
  MPI_Finalized(&flag);
  if (flag == 0) return 25;
  int version = 0, subversion = 0;
  MPI_Get_version(&version, &subversion);  // allowed after MPI_Finalize
  if (version < 3) return 26;
  // What the run leaves in the process once MPI is finalized (the tracer's share: compared untraced).
  if (std::getenv("LIFECYCLE_REPORT") != nullptr)
    std::printf("rank %d after MPI_Finalize: %d descriptors, %d threads\n", rank, entries("/proc/self/fd") - 1,
                entries("/proc/self/task"));
  return rc;
}
