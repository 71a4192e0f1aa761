#pragma once
// The trace file's own MPI-IO writes, as the wrappers see them. HDF5 1.10 does not survive a write
// error in its MPI-IO driver: a rank that met it leaves the collectives of HDF5's close that the
// other ranks are in (a hang, seen on a disk that filled during the close), and a failed close frees
// the file but keeps its id, on which HDF5's shutdown in MPI_Finalize crashes (signal 11 in
// H5F__close_cb, seen on every run whose write met a file-size limit). So while the tracer writes
// its trace (trace_writer.cpp), the wrappers of the calls with which the driver changes a file
// (kind file_write in mpi_functions.txt) keep the first failure on that file from HDF5: they keep its
// reason (trace_file_error) and answer it, and every later change to the file, as done without
// writing. HDF5 then runs through to a clean close on every rank alike; the writer agrees on
// trace_file_error after every step and after the close, and removes the incomplete file.
#include <mpi.h>

#include <atomic>
#include <cerrno>

namespace ripple::trace {
namespace detail {
enum TraceFileState : int { kNoTraceFile = 0, kWritingTraceFile, kDiscardingTraceFile };
extern std::atomic<int> g_trace_file_state;
extern MPI_File g_trace_file;  // read only while the state is not kNoTraceFile
// Keeps why (the MPI error, or how much of a short write was done; errno where it names a cause),
// starts discarding.
void trace_file_failed(int rc, int err, int done, int count, MPI_Datatype type);
int pretend_written(MPI_Status* status, int count, MPI_Datatype type);  // the status of a whole write
}  // namespace detail

// From watch to unwatch (both on the writing thread, at MPI_Finalize) the calls on `file` go through
// the two functions below.
void watch_trace_file(MPI_File file);
void unwatch_trace_file();
// Every later change to the watched file is answered as done without writing (a failure elsewhere).
void discard_trace_file_writes();
// Why a change to the watched file failed on this rank ("" if none did).
const char* trace_file_error();

inline bool is_trace_file(MPI_File file) {
  return detail::g_trace_file_state.load(std::memory_order_acquire) != detail::kNoTraceFile && file == detail::g_trace_file;
}

// A write of `count` elements of `type`, made by write(status); a short write counts as failed.
template <class Write>
int trace_file_write(Write&& write, MPI_Status* status, int count, MPI_Datatype type) {
  if (detail::g_trace_file_state.load(std::memory_order_acquire) == detail::kWritingTraceFile) {
    MPI_Status own;
    MPI_Status* used = status == MPI_STATUS_IGNORE ? &own : status;
    errno = 0;
    const int rc = write(used);
    const int err = errno;
    int done = -1;
    if (rc == MPI_SUCCESS && PMPI_Get_count(used, type, &done) == MPI_SUCCESS && done == count) return rc;
    detail::trace_file_failed(rc, err, done, count, type);
  }
  return detail::pretend_written(status, count, type);
}
// A change without data (MPI_File_set_size, MPI_File_sync), made by change().
template <class Change>
int trace_file_change(Change&& change) {
  if (detail::g_trace_file_state.load(std::memory_order_acquire) == detail::kWritingTraceFile) {
    errno = 0;
    const int rc = change();
    if (rc == MPI_SUCCESS) return rc;
    detail::trace_file_failed(rc, errno, 0, 0, MPI_BYTE);
  }
  return MPI_SUCCESS;
}

}  // namespace ripple::trace
