#pragma once
// The trace file's own MPI-IO calls, as the wrappers see them. HDF5 1.10 does not survive an I/O
// error in its MPI-IO driver: a rank that met it leaves the collectives of HDF5's close that the
// other ranks are in (a hang, seen on a disk that filled during the close), and a failed close frees
// the file but keeps its id, on which HDF5's shutdown in MPI_Finalize crashes (signal 11 in
// H5F__close_cb, seen on every run whose write met a file-size limit). So while the tracer writes
// its trace (trace_writer.cpp), the wrappers of the calls with which the driver changes or closes a
// file (kinds file_write and file_free in mpi_functions.txt) keep the first failure on that file
// from HDF5: they keep its reason (trace_file_error) and answer it as a success. From then on this
// rank's writes to the file are not made: an independent one is skipped, a collective one is made
// without data (the other ranks, which have not failed yet, are in it), and set_size, sync and close
// (collective) are made and their results kept from HDF5. So every rank goes through HDF5's
// sequence of collectives to a clean close; the writer agrees on trace_file_error after every step
// and after the close, and removes the incomplete file.
#include <mpi.h>

#include <atomic>
#include <cerrno>

namespace ripple::trace {
namespace detail {
enum TraceFileState : int { kNoTraceFile = 0, kWritingTraceFile, kDiscardingTraceFile };
extern std::atomic<int> g_trace_file_state;
extern MPI_File g_trace_file;  // read only while the state is not kNoTraceFile
// Keeps why (the MPI error, or how much of a short write was done: `done` of `wanted` bytes, -1 if
// not a write; errno where it names a cause) and starts discarding.
void trace_file_failed(int rc, int err, MPI_Count done, MPI_Count wanted);
MPI_Count bytes_of(int count, MPI_Datatype type);
int pretend_written(MPI_Status* status, int count, MPI_Datatype type);  // the status of a whole write
}  // namespace detail

// From watch to unwatch (both on the writing thread, at MPI_Finalize) the calls on `file` go through
// the two functions below.
void watch_trace_file(MPI_File file);
void unwatch_trace_file();
// From now on this rank's writes to the watched file are not made (a failure elsewhere).
void discard_trace_file_writes();
// Why a call on the watched file failed on this rank ("" if none did).
const char* trace_file_error();

inline bool is_trace_file(MPI_File file) {
  return detail::g_trace_file_state.load(std::memory_order_acquire) != detail::kNoTraceFile && file == detail::g_trace_file;
}

// A write of `count` elements of `type`, made by write(status, count), collective or not. Whole is
// what HDF5 calls whole: MPI_Get_elements_x of its types, all made of bytes, equal to their size.
template <class Write>
int trace_file_write(Write&& write, MPI_Status* status, int count, MPI_Datatype type, bool collective) {
  if (detail::g_trace_file_state.load(std::memory_order_acquire) == detail::kWritingTraceFile) {
    MPI_Status own;
    MPI_Status* used = status == MPI_STATUS_IGNORE ? &own : status;
    errno = 0;
    const int rc = write(used, count);
    const int err = errno;
    MPI_Count done = -1;
    const MPI_Count wanted = detail::bytes_of(count, type);
    if (rc == MPI_SUCCESS && PMPI_Get_elements_x(used, type, &done) == MPI_SUCCESS && done == wanted) return rc;
    detail::trace_file_failed(rc, err, rc == MPI_SUCCESS ? done : -1, wanted);
  } else if (collective) {
    MPI_Status ignored;
    write(&ignored, 0);  // the other ranks are in this call: taken part in, without data
  }
  return detail::pretend_written(status, count, type);
}
// A collective call without data (MPI_File_set_size, MPI_File_sync, MPI_File_close), made by
// change(): always made, its failure kept from HDF5.
template <class Change>
int trace_file_change(Change&& change) {
  errno = 0;
  const int rc = change();
  const int err = errno;
  if (rc != MPI_SUCCESS && detail::g_trace_file_state.load(std::memory_order_acquire) == detail::kWritingTraceFile)
    detail::trace_file_failed(rc, err, -1, -1);
  return MPI_SUCCESS;
}

}  // namespace ripple::trace
