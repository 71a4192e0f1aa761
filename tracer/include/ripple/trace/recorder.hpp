#pragma once
// The recorder behind the PMPI wrappers. Hot path (Scope): no allocation, no locks unless MPI runs
// with MPI_THREAD_MULTIPLE, no stdio: events go into a preallocated ring, whose new part is appended
// to a per-rank spool file with write(2) when the ring is full or at the flush interval, so a
// crashed run leaves everything up to the last flush on disk. MPI_Finalize merges all ranks' events into one HDF5 file,
// written collectively (docs/trace-format.md).
#include <mpi.h>

#include "ripple/trace/event.hpp"

namespace ripple::trace {

// After PMPI_Init*: sets up the recorder (environment: RIPPLE_TRACE_OUTPUT, RIPPLE_TRACE_BUFFER_MIB,
// RIPPLE_TRACE_FLUSH_SECONDS) and records the init call.
void start(Call init_call);
// Before PMPI_Finalize: flushes, writes the HDF5 file collectively, removes the spool.
void stop();
// In MPI_Abort: flush what is buffered so that `ripple trace recover` finds it.
void abort_flush();
// MPI_Pcontrol(kPcontrolIteration, i) sets the iteration recorded with the following events.
void set_iteration(int iteration);

// Communicators: new ones get an id and their world ranks; freed ones are forgotten.
void register_comm(MPI_Comm comm);
void forget_comm(MPI_Comm comm);
// Windows: the communicator that translates one-sided targets to world ranks.
void register_window(MPI_Win win, MPI_Comm comm);
void forget_window(MPI_Win win);

// Records one call: enter time at construction, exit time and commit at destruction. Nested MPI
// calls made by MPI itself (or by the recorder) are not recorded.
class Scope {
public:
  // `call_site` is the wrapper's return address: where the application called MPI.
  Scope(Call call, const void* call_site);
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
  ~Scope();
  [[nodiscard]] bool recording() const { return recording_; }
  // Records the call now (for calls that do not return, MPI_Abort); nothing more is recorded.
  void commit_now();
  void buffer(const void* buf, int count, MPI_Datatype type);
  void count(int n);
  void comm(MPI_Comm c);
  void peer(int rank, MPI_Comm c);
  void tag(int t);
  void request(const MPI_Request* r);
  // Completion calls (generated wrappers call these around the PMPI call).
  MPI_Status* status(MPI_Status* s);  // a status to read, even if the caller ignores it
  MPI_Status* statuses(MPI_Status* s, int count);
  void snapshot(const MPI_Request* requests, int count);  // handles before MPI frees them
  void completed_one(int index, const MPI_Status* status);
  void completed_all(int count, const MPI_Status* statuses);
  void completed_some(int outcount, const int* indices, const MPI_Status* statuses);
  // The call returned MPI_ERR_IN_STATUS: each status's MPI_ERROR says whether its request completed.
  void errors_in_status() { errors_in_status_ = true; }
  void resolve_source(const MPI_Status* status, MPI_Comm c);  // MPI_ANY_SOURCE: the actual sender
  // The receive half of a combined call (MPI_Sendrecv): a completion record (request -1) with the
  // actual source, tag and bytes from the status.
  void received(int source, const MPI_Status* status, MPI_Comm c);
  void window(MPI_Win w);        // the window's communicator becomes the event's
  void window_peer(int target);  // a target rank of that communicator
  void started(const MPI_Request* r, int count);
  void forget_request(const MPI_Request* r);

private:
  void completion(int index, const MPI_Status* status);
  Event& new_completion(int index);
  Event event_;
  bool recording_ = false;
  int pending_ = 0;         // completion records waiting in the thread's scratch
  int snapshot_count_ = 0;  // requests the completion call was given
  bool errors_in_status_ = false;
};

}  // namespace ripple::trace
