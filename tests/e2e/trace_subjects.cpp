// Small MPI programs for the tracer tests (they know nothing of the tracer):
//   anysource: every rank sends rank 0 two messages; rank 0 receives them with MPI_ANY_SOURCE,
//              once through MPI_Irecv + MPI_Waitany and once through MPI_Recv.
//   split:     MPI_Comm_split by parity; in each half, local rank 1 sends to local rank 0 (tag 7),
//              then local 0 to local 1 on a duplicate made by MPI_Comm_idup (tag 8).
//   threads:   MPI_THREAD_MULTIPLE, two threads per rank exchange `n` messages with the partner
//              rank concurrently (tag = thread).
//   gaps:      the cases a tracer easily gets wrong: MPI_IN_PLACE collectives (Reduce, Gather and
//              Gatherv at the root, Allgather, Allgatherv and Alltoallv everywhere), MPI_Put to a target of a split
//              communicator's window, MPI_Sendrecv and MPI_Iprobe with MPI_ANY_SOURCE around a ring, and a wait on a persistent
//              request before it is started (then started and completed twice by MPI_Startall, once by MPI_Start each).
//   touch:     maps `pages` fresh pages (no huge pages), marks iterations 0..2 as the proxy apps do
//              (MPI_Pcontrol(7701, it)), touches the first byte of every page in iteration 1 only,
//              then sends the whole buffer to itself so that the trace holds its address range.
//   churn:     `n` times: split MPI_COMM_WORLD in reverse rank order, post an MPI_ANY_SOURCE receive
//              on the new communicator, send to the partner, free the communicator while the
//              receive is pending (legal: it completes normally), then wait for it; prints how much
//              resident memory grew from the tenth round to the last. Then one receive outlives
//              its communicator by 2000 more splits and frees before it is waited for, and so does
//              a window, through which each rank then puts to the world rank before it.
//   collectives: every collective beyond the basic ones once, blocking, non-blocking (completed by
//              one MPI_Waitall) and neighbourhood (on a periodic 1-D Cartesian ring), with counts
//              that tell them apart (v-collectives: counts[i] = i + 1 at displacements i * size);
//              MPI_Ibsend and MPI_Irsend; matched probes and receives (MPI_Mprobe + MPI_Mrecv from
//              MPI_ANY_SOURCE, MPI_Improbe + MPI_Imrecv from a named source) on a communicator in
//              reverse rank order, from world rank + 1; passive- and active-target one-sided calls
//              on the next rank.
//   io:        MPI-IO on a communicator in reverse rank order, to the file `path`: each rank writes
//              10 doubles at 80 * rank (MPI_File_write_at_all) and 5 at 80 * size + 40 * rank
//              (MPI_File_iwrite_at + MPI_Wait), syncs, reads its 10 back (MPI_File_read_at), then
//              asks for 10 doubles 8 bytes before the end of the file (1 comes back), reads its 5
//              back (MPI_File_iread_at + MPI_Wait), sets a view of doubles and reads 3 (MPI_File_read_all)
//              and 2 (MPI_File_read_all_begin/_end); rank 0 deletes the file. Before that, two
//              non-blocking reads of 7 doubles from a write-only file (on MPI_COMM_SELF) that fail
//              (exit 6 if they do not). Exit 5 if the data read back are wrong.
//   requests:  a generalised request (MPI_Grequest_start, MPI_Grequest_complete, then
//              MPI_Request_get_status and MPI_Wait), and a receive nobody sends to, cancelled
//              (MPI_Cancel, MPI_Wait); exit 5 unless MPI reports it cancelled.
//   completions: 2 ranks, partners. Under MPI_ERRORS_RETURN, completion calls that fail: a
//              generalised request whose query fails, completed by MPI_Wait, MPI_Test,
//              MPI_Waitany and MPI_Testany, a truncated receive (tag
//              40, MPI_Wait), and MPI_Waitall with MPI_ERR_IN_STATUS (the failing one and a receive
//              from MPI_PROC_NULL, tag 41); exit 6 unless MPI reports each. Then completion calls
//              that complete nothing (null requests, an inactive persistent one, counts of 0),
//              MPI_Testall before and after its second receive arrives (tag 43; exit 7 if it says
//              complete before), and a receive freed while active (tag 44) before the next (tag 45).
//   faults:    first-touches `n` fresh pages, with an iteration marker before every 4096 of them
//              (iteration k touches pages 4096 k ... 4096 k + 4095).
//   workers:   the hybrid case: in iteration 1 (between MPI_Pcontrol(7701, 1) and (7701, 2)), `t`
//              threads started after MPI_Init each first-touch `pages` fresh pages of their own, as
//              OpenMP workers would; then the rank sleeps 0.3 s. Each rank prints its main thread's
//              id and, per worker, "rank R worker TID buffer ADDRESS" (decimal).
//   hygiene:   what a preloaded tracer must not do to its host process: a thread with a 64 KiB stack
//              starts (exit 7 if not: the tracer's thread-locals come out of every thread's
//              stack); no descriptor of the tracer's (its spool, perf events) survives an exec
//              (exit 8 if one lacks FD_CLOEXEC); then a forked child first-touches `pages` fresh
//              pages in iteration 1 and exits, and the rank prints "child PID".
//   unfinished: `n` iteration markers, then exit(0) without MPI_Finalize (an erroneous program, and
//              a common one: the tracer's atexit handler spools what it holds, for `recover`).
//   markers:   `n` iteration markers (MPI_Pcontrol(7701, it)) back to back on rank 0, n / 10 on
//              the others (so that ranks write different numbers of rows); prints how much the
//              process's resident memory grew from the tenth of them to the last (tracer memory
//              that grows with the run would show here).
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
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
  // First a split that leaves world rank 0 out (MPI_UNDEFINED): it has one communicator fewer than
  // the others, and every later one must still have the same id on all its members.
  MPI_Comm rest;
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 0, rank, &rest);
  if (rest != MPI_COMM_NULL) MPI_Comm_free(&rest);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int local = 0;
  MPI_Comm_rank(half, &local);
  double v = rank;
  if (local == 1) MPI_Send(&v, 1, MPI_DOUBLE, 0, 7, half);
  if (local == 0) MPI_Recv(&v, 1, MPI_DOUBLE, 1, MPI_ANY_TAG, half, MPI_STATUS_IGNORE);  // records tag 7
  // A combined call whose receive half is from MPI_PROC_NULL: an empty completion record all the same.
  double none = 0;
  MPI_Sendrecv(&v, 1, MPI_DOUBLE, MPI_PROC_NULL, 9, &none, 1, MPI_DOUBLE, MPI_PROC_NULL, 9, half, MPI_STATUS_IGNORE);
  // A duplicate made without blocking (the tracer learns it at first use), in reverse rank order:
  // in it, local 0 answers local 1.
  MPI_Comm dup;
  MPI_Request r;
  MPI_Comm_idup(half, &dup, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  if (local == 0) MPI_Send(&v, 1, MPI_DOUBLE, 1, 8, dup);
  if (local == 1) MPI_Recv(&v, 1, MPI_DOUBLE, 0, 8, dup, MPI_STATUS_IGNORE);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&half);
  return 0;
}

// A receive pending on a communicator freed before the wait; then waits on MPI_REQUEST_NULL, which
// complete nothing.
int freed(int rank) {
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int v = rank;
  MPI_Request r = MPI_REQUEST_NULL;
  if (rank == 0) MPI_Irecv(&v, 1, MPI_INT, 1, 5, dup, &r);
  if (rank == 1) MPI_Send(&v, 1, MPI_INT, 0, 5, dup);
  MPI_Comm_free(&dup);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  MPI_Request none = MPI_REQUEST_NULL;
  MPI_Wait(&none, MPI_STATUS_IGNORE);
  return 0;
}

// Derived datatypes made and freed one after the other (MPI may hand out the same handle again):
// each send's bytes and extent must be its own type's, not a size the tracer cached for the last.
int types(int rank) {
  std::vector<double> v(64, 1.0);
  for (int k = 1; k <= 4; ++k) {
    MPI_Datatype strided;
    MPI_Type_vector(k, 1, 2, MPI_DOUBLE, &strided);  // size 8k, extent 8(2k - 1)
    MPI_Type_commit(&strided);
    if (rank == 0) MPI_Send(v.data(), 3, strided, 1, k, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(v.data(), 3, strided, 0, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&strided);
  }
  return 0;
}

// Intercommunicator between the even and the odd world ranks: peers are remote-group ranks. Then
// merged, evens first (world 0 2 1 3 for 4 ranks), and a ring around the merged communicator,
// received from MPI_ANY_SOURCE; the merged one ends by MPI_Comm_disconnect.
int inter(int rank) {
  MPI_Comm half, bridge;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 3, &bridge);
  int local = 0;
  MPI_Comm_rank(half, &local);
  double v = rank;
  if (local == 0 && rank % 2 == 0) MPI_Send(&v, 1, MPI_DOUBLE, 0, 4, bridge);  // to remote rank 0: world 1
  if (local == 0 && rank % 2 == 1) MPI_Recv(&v, 1, MPI_DOUBLE, 0, 4, bridge, MPI_STATUS_IGNORE);
  // A broadcast from the even group's local 0 (MPI_ROOT there, MPI_PROC_NULL for the other evens)
  // to the odd group, which names remote rank 0: world 0.
  const int root = rank % 2 == 1 ? 0 : local == 0 ? MPI_ROOT : MPI_PROC_NULL;
  MPI_Bcast(&v, 1, MPI_DOUBLE, root, bridge);
  MPI_Comm merged;
  MPI_Intercomm_merge(bridge, rank % 2, &merged);
  int m = 0, n = 0;
  MPI_Comm_rank(merged, &m);
  MPI_Comm_size(merged, &n);
  int out = rank, in = -1;
  MPI_Sendrecv(&out, 1, MPI_INT, (m + 1) % n, 5, &in, 1, MPI_INT, MPI_ANY_SOURCE, 5, merged, MPI_STATUS_IGNORE);
  MPI_Comm_disconnect(&merged);
  MPI_Comm_free(&bridge);
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

int gaps(int rank, int size) {
  // In-place collectives: 4 doubles per rank.
  std::vector<double> v(4 * static_cast<std::size_t>(size), 1.0);
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : v.data(), v.data(), 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Gather(rank == 0 ? MPI_IN_PLACE : v.data(), 4, MPI_DOUBLE, v.data(), 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Allgather(MPI_IN_PLACE, 4, MPI_DOUBLE, v.data(), 4, MPI_DOUBLE, MPI_COMM_WORLD);
  // Their v-forms in place: Gatherv at the root, Allgatherv and Alltoallv everywhere.
  std::vector<int> counts(static_cast<std::size_t>(size), 4), displs(static_cast<std::size_t>(size));
  for (int k = 0; k < size; ++k) displs[static_cast<std::size_t>(k)] = 4 * k;
  MPI_Gatherv(rank == 0 ? MPI_IN_PLACE : v.data(), 4, MPI_DOUBLE, v.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
              MPI_COMM_WORLD);
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DOUBLE, v.data(), counts.data(), displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Alltoallv(MPI_IN_PLACE, counts.data(), displs.data(), MPI_DOUBLE, v.data(), counts.data(), displs.data(), MPI_DOUBLE,
                MPI_COMM_WORLD);
  // One-sided: in the half of the same parity, every rank puts into local rank 0's window.
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  // The halves build their windows one after the other: Open MPI 4.1 names a window's shared-memory
  // segment by the communicator's context id, which two halves split from one communicator share.
  std::vector<double> base(static_cast<std::size_t>(size));
  int me = 0;
  MPI_Comm_rank(half, &me);
  for (int turn = 0; turn < 2; ++turn) {
    if (rank % 2 == turn) {
      MPI_Win win = MPI_WIN_NULL;
      MPI_Win_create(base.data(), 8 * static_cast<MPI_Aint>(size), 8, MPI_INFO_NULL, half, &win);
      MPI_Win_fence(0, win);
      const double one = 1.0;
      MPI_Put(&one, 1, MPI_DOUBLE, 0, me, 1, MPI_DOUBLE, win);
      MPI_Win_fence(0, win);
      MPI_Win_free(&win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Comm_free(&half);
  // A ring: send right, receive from anyone (the left neighbour), 3 doubles, tag 7.
  double out[3] = {1, 2, 3}, in[3] = {};
  MPI_Status st;
  MPI_Sendrecv(out, 3, MPI_DOUBLE, (rank + 1) % size, 7, in, 3, MPI_DOUBLE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st);
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Isend(out, 2, MPI_DOUBLE, (rank + 1) % size, 8, MPI_COMM_WORLD, &req);
  for (int flag = 0; !flag;) MPI_Iprobe(MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &flag, &st);
  MPI_Recv(in, 2, MPI_DOUBLE, st.MPI_SOURCE, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  // Persistent: a wait before the first start completes nothing; then two rounds.
  MPI_Request pr[2];
  MPI_Recv_init(in, 1, MPI_DOUBLE, (rank + size - 1) % size, 9, MPI_COMM_WORLD, &pr[0]);
  MPI_Send_init(out, 1, MPI_DOUBLE, (rank + 1) % size, 9, MPI_COMM_WORLD, &pr[1]);
  MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
  for (int round = 0; round < 2; ++round) {
    MPI_Startall(2, pr);
    MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
  }
  MPI_Start(&pr[0]);
  MPI_Start(&pr[1]);
  MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
  MPI_Request_free(&pr[0]);
  MPI_Request_free(&pr[1]);
  return 0;
}

// `pages` fresh pages without huge pages (so one fault per page), or null.
char* fresh_pages(int pages) {
  const std::size_t bytes = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)) * static_cast<std::size_t>(pages);
  void* map = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return nullptr;
  ::madvise(map, bytes, MADV_NOHUGEPAGE);
  return static_cast<char*>(map);
}

int touch(int rank, int pages) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t bytes = page * static_cast<std::size_t>(pages);
  char* buf = fresh_pages(pages);
  if (buf == nullptr) return 4;
  for (int it = 0; it < 3; ++it) {
    MPI_Pcontrol(7701, it);
    if (it == 1)
      for (std::size_t p = 0; p < bytes; p += page) buf[p] = static_cast<char>(p / page);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  std::vector<char> copy(bytes);
  MPI_Sendrecv(buf, static_cast<int>(bytes), MPI_BYTE, rank, 5, copy.data(), static_cast<int>(bytes), MPI_BYTE, rank, 5,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  const int ok = copy[page] == 1 ? 0 : 5;
  ::munmap(buf, bytes);
  return ok;
}

int workers(int rank, int threads, int pages) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<char*> buffers(static_cast<std::size_t>(threads));
  std::vector<long> tids(static_cast<std::size_t>(threads));
  for (char*& b : buffers)
    if ((b = fresh_pages(pages)) == nullptr) return 4;
  MPI_Pcontrol(7701, 0);
  MPI_Pcontrol(7701, 1);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      tids[static_cast<std::size_t>(t)] = ::gettid();
      char* b = buffers[static_cast<std::size_t>(t)];
      for (std::size_t p = 0; p < page * static_cast<std::size_t>(pages); p += page) b[p] = 1;
    });
  for (std::thread& t : pool) t.join();
  MPI_Pcontrol(7701, 2);
  std::printf("rank %d main %ld\n", rank, static_cast<long>(::gettid()));
  for (int t = 0; t < threads; ++t)
    std::printf("rank %d worker %ld buffer %ju\n", rank, tids[static_cast<std::size_t>(t)],
                static_cast<std::uintmax_t>(reinterpret_cast<std::uintptr_t>(buffers[static_cast<std::size_t>(t)])));
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the tracer's flusher wakes meanwhile
  MPI_Barrier(MPI_COMM_WORLD);
  return 0;
}

long resident_kib() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof line, f) != nullptr)
    if (std::sscanf(line, "VmRSS: %ld kB", &kib) == 1) break;
  std::fclose(f);
  return kib;
}

int churn(int rank, int size, int n) {
  long start = -1;
  for (int it = 0; it < n; ++it) {
    if (it == n / 10) start = resident_kib();
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &c);  // local rank size-1-rank
    int in = -1, me = 0;
    MPI_Comm_rank(c, &me);
    MPI_Request req;
    MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 3, c, &req);
    const int out = rank;
    MPI_Send(&out, 1, MPI_INT, (me + 1) % size, 3, c);
    MPI_Comm_free(&c);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (in != (rank + 1) % size) return 7;  // local rank me - 1 is world rank rank + 1
  }
  const long end = resident_kib();
  if (start < 0 || end < 0) return 6;
  std::printf("rank %d: resident memory grew by %ld KiB over the last %d rounds\n", rank, end - start, n - n / 10);
  MPI_Comm late;
  MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &late);
  int in = -1, me = 0;
  MPI_Comm_rank(late, &me);
  MPI_Request req[2];
  const int out = rank;
  MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 4, late, &req[0]);
  MPI_Isend(&out, 1, MPI_INT, (me + 1) % size, 4, late, &req[1]);
  MPI_Comm_free(&late);
  for (int k = 0; k < 2000; ++k) {
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &c);
    MPI_Comm_free(&c);
  }
  MPI_Comm on;
  MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &on);
  MPI_Comm_rank(on, &me);
  double* base = nullptr;
  MPI_Win win;
  MPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, on, &base, &win);
  MPI_Comm_free(&on);
  for (int k = 0; k < 2000; ++k) {
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &c);
    MPI_Comm_free(&c);
  }
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  MPI_Win_fence(0, win);
  const double value = rank;
  MPI_Put(&value, 1, MPI_DOUBLE, (me + 1) % size, 0, 1, MPI_DOUBLE, win);  // local me + 1: world rank - 1
  MPI_Win_fence(0, win);
  const bool put_ok = *base == static_cast<double>((rank + 1) % size);
  MPI_Win_free(&win);
  return in == (rank + 1) % size && put_ok ? 0 : 7;
}

int collectives(int rank, int size) {
  const MPI_Datatype d = MPI_DOUBLE;
  std::vector<double> a(static_cast<std::size_t>(64 * size), rank), b(static_cast<std::size_t>(64 * size), 0);
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size)),
      mine(static_cast<std::size_t>(size), rank + 1), ones(static_cast<std::size_t>(size), 1),
      bytes_at(static_cast<std::size_t>(size));
  std::vector<MPI_Datatype> types(static_cast<std::size_t>(size), d);
  for (int i = 0; i < size; ++i) {
    counts[static_cast<std::size_t>(i)] = i + 1;
    displs[static_cast<std::size_t>(i)] = i * size;
    bytes_at[static_cast<std::size_t>(i)] = 8 * i;
  }
  // What each rank receives in the v-collectives: counts[rank] from everyone.
  std::vector<int> from(static_cast<std::size_t>(size), rank + 1);
  const int* c = counts.data();
  const int* dsp = displs.data();
  MPI_Scatter(a.data(), 2, d, b.data(), 2, d, 0, MPI_COMM_WORLD);
  MPI_Scatterv(a.data(), c, dsp, d, b.data(), rank + 1, d, 0, MPI_COMM_WORLD);
  MPI_Gatherv(a.data(), rank + 1, d, b.data(), c, dsp, d, 0, MPI_COMM_WORLD);
  MPI_Allgatherv(a.data(), rank + 1, d, b.data(), c, dsp, d, MPI_COMM_WORLD);
  MPI_Alltoallv(a.data(), c, dsp, d, b.data(), from.data(), dsp, d, MPI_COMM_WORLD);
  MPI_Alltoallw(a.data(), ones.data(), bytes_at.data(), types.data(), b.data(), ones.data(), bytes_at.data(), types.data(),
                MPI_COMM_WORLD);
  MPI_Reduce_scatter(a.data(), b.data(), c, d, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce_scatter_block(a.data(), b.data(), 2, d, MPI_SUM, MPI_COMM_WORLD);
  MPI_Scan(a.data(), b.data(), 3, d, MPI_SUM, MPI_COMM_WORLD);
  MPI_Exscan(a.data(), b.data(), 3, d, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm ring;
  const int periodic = 1;
  MPI_Cart_create(MPI_COMM_WORLD, 1, &size, &periodic, 0, &ring);
  // To the left neighbour 1 element, to the right 2: so 2 come from the left and 1 from the right.
  const int two[2] = {2, 2}, at[2] = {0, 2}, split[2] = {1, 2}, back[2] = {2, 1}, gap[2] = {0, 4}, one[2] = {1, 1};
  const MPI_Aint wat[2] = {0, 8};
  const MPI_Datatype wt[2] = {d, d};
  MPI_Neighbor_allgather(a.data(), 2, d, b.data(), 2, d, ring);
  MPI_Neighbor_allgatherv(a.data(), 2, d, b.data(), two, at, d, ring);
  MPI_Neighbor_alltoall(a.data(), 3, d, b.data(), 3, d, ring);
  MPI_Neighbor_alltoallv(a.data(), split, gap, d, b.data(), back, gap, d, ring);
  MPI_Neighbor_alltoallw(a.data(), one, wat, wt, b.data(), one, wat, wt, ring);
  // Non-blocking: each into its own part of b, all completed by one MPI_Waitall.
  std::vector<MPI_Request> r;
  auto next = [&] {
    r.push_back(MPI_REQUEST_NULL);
    return &r.back();
  };
  r.reserve(32);
  double* out = b.data();
  std::vector<double> more(static_cast<std::size_t>(64 * size * 20), 0);
  auto part = [&](int k) { return more.data() + static_cast<std::ptrdiff_t>(k) * 64 * size; };
  MPI_Ibcast(part(0), 4, d, 0, MPI_COMM_WORLD, next());
  MPI_Ireduce(a.data(), part(1), 4, d, MPI_SUM, 0, MPI_COMM_WORLD, next());
  MPI_Igather(a.data(), 2, d, part(2), 2, d, 0, MPI_COMM_WORLD, next());
  MPI_Igatherv(a.data(), rank + 1, d, part(3), c, dsp, d, 0, MPI_COMM_WORLD, next());
  MPI_Iscatter(a.data(), 2, d, part(4), 2, d, 0, MPI_COMM_WORLD, next());
  MPI_Iscatterv(a.data(), c, dsp, d, part(5), rank + 1, d, 0, MPI_COMM_WORLD, next());
  MPI_Iallgather(a.data(), 2, d, part(6), 2, d, MPI_COMM_WORLD, next());
  MPI_Iallgatherv(a.data(), rank + 1, d, part(7), c, dsp, d, MPI_COMM_WORLD, next());
  MPI_Ialltoall(a.data(), 2, d, part(8), 2, d, MPI_COMM_WORLD, next());
  MPI_Ialltoallv(a.data(), c, dsp, d, part(9), from.data(), dsp, d, MPI_COMM_WORLD, next());
  MPI_Ialltoallw(a.data(), ones.data(), bytes_at.data(), types.data(), part(10), ones.data(), bytes_at.data(), types.data(),
                 MPI_COMM_WORLD, next());
  MPI_Ireduce_scatter(a.data(), part(11), c, d, MPI_SUM, MPI_COMM_WORLD, next());
  MPI_Ireduce_scatter_block(a.data(), part(12), 2, d, MPI_SUM, MPI_COMM_WORLD, next());
  MPI_Iscan(a.data(), part(13), 3, d, MPI_SUM, MPI_COMM_WORLD, next());
  MPI_Iexscan(a.data(), part(14), 3, d, MPI_SUM, MPI_COMM_WORLD, next());
  MPI_Ineighbor_allgather(a.data(), 2, d, part(15), 2, d, ring, next());
  MPI_Ineighbor_allgatherv(a.data(), 2, d, part(16), two, at, d, ring, next());
  MPI_Ineighbor_alltoall(a.data(), 3, d, part(17), 3, d, ring, next());
  MPI_Ineighbor_alltoallv(a.data(), split, gap, d, part(18), back, gap, d, ring, next());
  MPI_Ineighbor_alltoallw(a.data(), one, wat, wt, part(19), one, wat, wt, ring, next());
  MPI_Waitall(static_cast<int>(r.size()), r.data(), MPI_STATUSES_IGNORE);
  MPI_Comm_free(&ring);
  // Buffered and ready sends to the next rank.
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  std::vector<char> attached(MPI_BSEND_OVERHEAD + 64);
  MPI_Buffer_attach(attached.data(), static_cast<int>(attached.size()));
  MPI_Request p2p[4];
  MPI_Irecv(out, 1, d, left, 11, MPI_COMM_WORLD, &p2p[0]);
  MPI_Irecv(out + 1, 1, d, left, 12, MPI_COMM_WORLD, &p2p[1]);
  MPI_Barrier(MPI_COMM_WORLD);  // every ready send finds its receive posted
  MPI_Ibsend(a.data(), 1, d, right, 11, MPI_COMM_WORLD, &p2p[2]);
  MPI_Irsend(a.data(), 1, d, right, 12, MPI_COMM_WORLD, &p2p[3]);
  MPI_Waitall(4, p2p, MPI_STATUSES_IGNORE);
  void* detached = nullptr;
  int detached_size = 0;
  MPI_Buffer_detach(&detached, &detached_size);
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &reversed);
  int me = 0;
  MPI_Comm_rank(reversed, &me);  // size - 1 - rank: local me - 1 is world rank + 1
  MPI_Request sends[2];
  MPI_Isend(a.data(), 3, d, (me + 1) % size, 31, reversed, &sends[0]);
  MPI_Isend(a.data(), 2, d, (me + 1) % size, 32, reversed, &sends[1]);
  MPI_Message message;
  MPI_Status probe_status;
  MPI_Mprobe(MPI_ANY_SOURCE, 31, reversed, &message, &probe_status);
  MPI_Mrecv(out, 3, d, &message, MPI_STATUS_IGNORE);
  for (int flag = 0; flag == 0;) MPI_Improbe((me + size - 1) % size, 32, reversed, &flag, &message, &probe_status);
  MPI_Request matched;
  MPI_Imrecv(out, 2, d, &message, &matched);
  MPI_Wait(&matched, MPI_STATUS_IGNORE);
  MPI_Waitall(2, sends, MPI_STATUSES_IGNORE);
  MPI_Comm_free(&reversed);
  // One-sided, on the next rank: passive target (exclusive lock, then lock_all), then active target.
  double* base = nullptr;
  MPI_Win win;
  MPI_Win_allocate(64 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  double result[4] = {}, one_value = 1;
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
  MPI_Accumulate(a.data(), 2, d, right, 0, 2, d, MPI_SUM, win);
  MPI_Get_accumulate(a.data(), 3, d, result, 3, d, right, 4, 3, d, MPI_SUM, win);
  MPI_Fetch_and_op(&one_value, result, d, right, 8, MPI_SUM, win);
  const std::int64_t swap_in = 1, swap_if = 0;  // compare-and-swap takes integers only
  std::int64_t swapped = 0;
  MPI_Compare_and_swap(&swap_in, &swap_if, &swapped, MPI_INT64_T, right, 9, win);
  MPI_Win_flush(right, win);
  MPI_Win_flush_local(right, win);
  MPI_Request rma[2];
  MPI_Rput(a.data(), 2, d, right, 10, 2, d, win, &rma[0]);
  MPI_Rget(result, 2, d, right, 12, 2, d, win, &rma[1]);
  MPI_Waitall(2, rma, MPI_STATUSES_IGNORE);
  MPI_Win_unlock(right, win);
  MPI_Win_lock_all(0, win);
  MPI_Win_flush_all(win);
  MPI_Win_flush_local_all(win);
  MPI_Win_unlock_all(win);
  MPI_Group world, to, by;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &right, &to);
  MPI_Group_incl(world, 1, &left, &by);
  MPI_Win_post(by, 0, win);
  MPI_Win_start(to, 0, win);
  MPI_Put(a.data(), 1, d, right, 20, 1, d, win);
  MPI_Win_complete(win);
  MPI_Win_wait(win);
  const bool ok = base[20] == static_cast<double>(left);
  MPI_Group_free(&to);
  MPI_Group_free(&by);
  MPI_Group_free(&world);
  MPI_Win_free(&win);
  return ok ? 0 : 8;
}

int io(int rank, int size, const char* path) {
  MPI_Comm rev;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
  MPI_Barrier(rev);  // its communicator id, for the checks
  MPI_File fh;
  if (MPI_File_open(rev, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS) return 4;
  // MPI-IO returns its errors (MPI_ERRORS_RETURN): a read of a write-only file fails and leaves the
  // request as it was, here bytes no MPI request has. Twice, so that a tracer that took it for a
  // request would meet it again.
  MPI_File wo;
  const std::string wo_path = std::string(path) + ".wo";
  if (MPI_File_open(MPI_COMM_SELF, wo_path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                    &wo) != MPI_SUCCESS)
    return 4;
  MPI_Request junk;
  // The handle itself (a pointer in Open MPI), filled with garbage:
  // NOLINTNEXTLINE(bugprone-sizeof-expression)
  std::memset(&junk, 0x5a, sizeof junk);
  double sink[7];
  int failed = 0;
  for (int k = 0; k < 2; ++k) failed += MPI_File_iread_at(wo, 0, sink, 7, MPI_DOUBLE, &junk) != MPI_SUCCESS ? 1 : 0;
  MPI_File_close(&wo);
  if (failed != 2) return 6;
  std::vector<double> mine(10), tail(5), back(10, -1.0), end(10, -1.0);
  for (int i = 0; i < 10; ++i) mine[i] = rank * 100 + i;
  for (int i = 0; i < 5; ++i) tail[i] = -(rank * 100 + i);
  MPI_File_write_at_all(fh, MPI_Offset{80} * rank, mine.data(), 10, MPI_DOUBLE, MPI_STATUS_IGNORE);
  MPI_Request r;
  MPI_File_iwrite_at(fh, MPI_Offset{80} * size + 40 * rank, tail.data(), 5, MPI_DOUBLE, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  MPI_File_sync(fh);
  MPI_Barrier(rev);
  MPI_File_sync(fh);  // the others' writes are visible after sync, barrier, sync
  MPI_File_read_at(fh, MPI_Offset{80} * rank, back.data(), 10, MPI_DOUBLE, MPI_STATUS_IGNORE);
  const MPI_Offset last = MPI_Offset{120} * size - 8;  // the file's last double: rank size-1's tail[4]
  MPI_File_read_at(fh, last, end.data(), 10, MPI_DOUBLE, MPI_STATUS_IGNORE);
  std::vector<double> tail_back(5, 0.0);  // (Open MPI 4.1's non-blocking read spins at the end of the file)
  MPI_File_iread_at(fh, MPI_Offset{80} * size + 40 * rank, tail_back.data(), 5, MPI_DOUBLE, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_DOUBLE, "native", MPI_INFO_NULL);
  std::vector<double> first(5, -1.0);
  MPI_File_read_all(fh, first.data(), 3, MPI_DOUBLE, MPI_STATUS_IGNORE);
  MPI_File_read_all_begin(fh, first.data() + 3, 2, MPI_DOUBLE);
  MPI_File_read_all_end(fh, first.data() + 3, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Barrier(rev);
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
  MPI_Comm_free(&rev);
  const double expect_end = -((size - 1) * 100 + 4);
  bool ok = back == mine && tail_back == tail && end[0] == expect_end && end[1] == -1.0;
  for (int i = 0; i < 5; ++i) ok = ok && first[i] == i;  // rank 0's first doubles
  return ok ? 0 : 5;
}

int query_nothing(void*, MPI_Status* status) {
  MPI_Status_set_elements(status, MPI_BYTE, 0);
  MPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  return MPI_SUCCESS;
}
int free_nothing(void*) { return MPI_SUCCESS; }
int cancel_nothing(void*, int) { return MPI_SUCCESS; }

int requests(int rank) {
  MPI_Request g;
  MPI_Grequest_start(query_nothing, free_nothing, cancel_nothing, nullptr, &g);
  MPI_Grequest_complete(g);
  int flag = 0;
  MPI_Request_get_status(g, &flag, MPI_STATUS_IGNORE);
  MPI_Wait(&g, MPI_STATUS_IGNORE);
  int v = 0;
  MPI_Request r;
  MPI_Irecv(&v, 1, MPI_INT, rank, 99, MPI_COMM_WORLD, &r);
  MPI_Cancel(&r);
  MPI_Status status;
  MPI_Wait(&r, &status);
  int cancelled = 0;
  MPI_Test_cancelled(&status, &cancelled);
  return flag != 0 && cancelled != 0 ? 0 : 5;
}

// A generalised request whose query fails: its completion call returns that error.
int query_fails(void*, MPI_Status* status) {
  query_nothing(nullptr, status);
  return MPI_ERR_OTHER;
}
MPI_Request failing_request() {
  MPI_Request g;
  MPI_Grequest_start(query_fails, free_nothing, cancel_nothing, nullptr, &g);
  MPI_Grequest_complete(g);
  return g;
}

int completions(int rank, int size) {
  const int partner = rank ^ 1;
  if (partner >= size) return 3;
  int v[2] = {rank, rank}, in[2] = {};
  // Under MPI_ERRORS_RETURN, completion calls that fail: MPI frees a request that failed (its
  // handle becomes MPI_REQUEST_NULL), so each completed, with an error.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int failed = 0, flag = 0, index = -1;
  MPI_Request g = failing_request();
  failed += MPI_Wait(&g, MPI_STATUS_IGNORE) != MPI_SUCCESS && g == MPI_REQUEST_NULL ? 1 : 0;
  g = failing_request();
  failed += MPI_Test(&g, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS && g == MPI_REQUEST_NULL ? 1 : 0;
  MPI_Request two[2] = {MPI_REQUEST_NULL, failing_request()};
  failed += MPI_Waitany(2, two, &index, MPI_STATUS_IGNORE) != MPI_SUCCESS && two[1] == MPI_REQUEST_NULL ? 1 : 0;
  two[1] = failing_request();
  failed += MPI_Testany(2, two, &index, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS && two[1] == MPI_REQUEST_NULL ? 1 : 0;
  // A receive of 1 int that 2 arrive for (tag 40): truncated, an error, from the partner.
  MPI_Request r;
  MPI_Irecv(in, 1, MPI_INT, partner, 40, MPI_COMM_WORLD, &r);
  MPI_Send(v, 2, MPI_INT, partner, 40, MPI_COMM_WORLD);
  failed += MPI_Wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS && r == MPI_REQUEST_NULL ? 1 : 0;
  // MPI_ERR_IN_STATUS: the failed request and a receive from MPI_PROC_NULL both completed.
  two[0] = failing_request();
  MPI_Irecv(in, 1, MPI_INT, MPI_PROC_NULL, 41, MPI_COMM_WORLD, &two[1]);
  failed += MPI_Waitall(2, two, MPI_STATUSES_IGNORE) == MPI_ERR_IN_STATUS ? 1 : 0;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  if (failed != 6) return 6;
  // Nothing to complete: null requests and an inactive persistent one (flag true, index and
  // outcount MPI_UNDEFINED), and arrays of none.
  MPI_Request p;
  MPI_Recv_init(in, 1, MPI_INT, partner, 42, MPI_COMM_WORLD, &p);
  MPI_Request none[2] = {MPI_REQUEST_NULL, p};
  int outcount = 0, indices[2];
  MPI_Test(&none[1], &flag, MPI_STATUS_IGNORE);
  MPI_Testany(2, none, &index, &flag, MPI_STATUS_IGNORE);
  MPI_Waitany(2, none, &index, MPI_STATUS_IGNORE);
  MPI_Testsome(2, none, &outcount, indices, MPI_STATUSES_IGNORE);
  MPI_Waitsome(2, none, &outcount, indices, MPI_STATUSES_IGNORE);
  MPI_Testall(2, none, &flag, MPI_STATUSES_IGNORE);
  MPI_Waitall(0, none, MPI_STATUSES_IGNORE);
  MPI_Testall(0, none, &flag, MPI_STATUSES_IGNORE);
  MPI_Request_free(&p);
  // Testall is all or nothing: with one receive still waiting (tag 43, sent after the barrier), none.
  MPI_Request both[2];
  MPI_Irecv(in, 1, MPI_INT, MPI_PROC_NULL, 43, MPI_COMM_WORLD, &both[0]);
  MPI_Irecv(in + 1, 1, MPI_INT, partner, 43, MPI_COMM_WORLD, &both[1]);
  MPI_Testall(2, both, &flag, MPI_STATUSES_IGNORE);
  if (flag != 0) return 7;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Send(v, 1, MPI_INT, partner, 43, MPI_COMM_WORLD);
  for (flag = 0; flag == 0;) MPI_Testall(2, both, &flag, MPI_STATUSES_IGNORE);
  // A receive freed while active completes unseen; the next one (tag 45) may get its handle.
  MPI_Irecv(in, 1, MPI_INT, partner, 44, MPI_COMM_WORLD, &r);
  MPI_Request_free(&r);
  MPI_Send(v, 1, MPI_INT, partner, 44, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Irecv(in, 1, MPI_INT, partner, 45, MPI_COMM_WORLD, &r);
  MPI_Send(v, 1, MPI_INT, partner, 45, MPI_COMM_WORLD);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  return 0;
}

int faults(int n) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t bytes = page * static_cast<std::size_t>(n);
  char* buf = fresh_pages(n);
  if (buf == nullptr) return 4;
  for (int p = 0; p < n; ++p) {
    if (p % 4096 == 0) MPI_Pcontrol(7701, p / 4096);
    buf[static_cast<std::size_t>(p) * page] = 1;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  ::munmap(buf, bytes);
  return 0;
}

int markers(int rank, int n) {
  long start = -1;
  for (int it = 0; it < n; ++it) {
    if (it == n / 10) start = resident_kib();
    MPI_Pcontrol(7701, it);
  }
  const long end = resident_kib();
  if (start < 0 || end < 0) return 6;
  std::printf("rank %d: resident memory grew by %ld KiB over the last %d markers\n", rank, end - start, n - n / 10);
  return 0;
}

int hygiene(int pages) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_t small;
  const int created = pthread_create(
      &small, &attr, [](void*) -> void* { return nullptr; }, nullptr);
  pthread_attr_destroy(&attr);
  if (created != 0) return 7;
  pthread_join(small, nullptr);
  for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const std::string target = std::filesystem::read_symlink(fd.path(), ec).string();
    const int n = std::atoi(fd.path().filename().c_str());
    if ((target.find(".spool/") != std::string::npos || target.find("perf_event") != std::string::npos) &&
        (fcntl(n, F_GETFD) & FD_CLOEXEC) == 0) {
      std::fprintf(stderr, "descriptor %d (%s) would survive an exec\n", n, target.c_str());
      return 8;
    }
  }
  MPI_Pcontrol(7701, 1);
  const pid_t child = fork();
  if (child == 0) {
    const std::size_t bytes = static_cast<std::size_t>(pages) * 4096;
    auto* p = static_cast<char*>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    for (std::size_t at = 0; p != MAP_FAILED && at < bytes; at += 4096) p[at] = 1;
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  MPI_Pcontrol(7701, 2);
  std::printf("child %d\n", static_cast<int>(child));
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
  else if (std::strcmp(mode, "freed") == 0)
    rc = freed(rank);
  else if (std::strcmp(mode, "types") == 0)
    rc = types(rank);
  else if (std::strcmp(mode, "inter") == 0)
    rc = inter(rank);
  else if (std::strcmp(mode, "gaps") == 0)
    rc = gaps(rank, size);
  else if (std::strcmp(mode, "churn") == 0)
    rc = churn(rank, size, argc > 2 ? std::atoi(argv[2]) : 1000);
  else if (std::strcmp(mode, "collectives") == 0)
    rc = collectives(rank, size);
  else if (std::strcmp(mode, "io") == 0 && argc > 2)
    rc = io(rank, size, argv[2]);
  else if (std::strcmp(mode, "requests") == 0)
    rc = requests(rank);
  else if (std::strcmp(mode, "completions") == 0)
    rc = completions(rank, size);
  else if (std::strcmp(mode, "faults") == 0)
    rc = faults(argc > 2 ? std::atoi(argv[2]) : 4096);
  else if (std::strcmp(mode, "markers") == 0)
    rc = markers(rank, (argc > 2 ? std::atoi(argv[2]) : 1000) / (rank == 0 ? 1 : 10));
  else if (std::strcmp(mode, "workers") == 0)
    rc = workers(rank, argc > 2 ? std::atoi(argv[2]) : 2, argc > 3 ? std::atoi(argv[3]) : 200);
  else if (std::strcmp(mode, "unfinished") == 0) {
    for (int it = 0; it < (argc > 2 ? std::atoi(argv[2]) : 1000); ++it) MPI_Pcontrol(7701, it);
    std::exit(0);
  } else if (std::strcmp(mode, "hygiene") == 0)
    rc = hygiene(argc > 2 ? std::atoi(argv[2]) : 200);
  else if (std::strcmp(mode, "touch") == 0)
    rc = touch(rank, argc > 2 ? std::atoi(argv[2]) : 256);
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
