#include "trace_file_guard.hpp"

#include <cstdio>
#include <cstring>

namespace ripple::trace {
namespace detail {
std::atomic<int> g_trace_file_state{kNoTraceFile};
MPI_File g_trace_file = MPI_FILE_NULL;

namespace {
char g_error[512] = "";  // by the first failure; HDF5 and the writer that reads it share one thread
}

void trace_file_failed(int rc, int err, MPI_Count done, MPI_Count wanted) {
  if (g_trace_file_state.exchange(kDiscardingTraceFile) != kWritingTraceFile) return;
  char what[MPI_MAX_ERROR_STRING + 64];
  if (rc != MPI_SUCCESS) {
    char mpi[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    PMPI_Error_string(rc, mpi, &len);
    std::snprintf(what, sizeof what, "MPI-IO failed (%s)", mpi);
  } else {  // a short write, which Open MPI's MPI-IO reports as a success on a full disk
    std::snprintf(what, sizeof what, "MPI-IO wrote %lld of %lld bytes", static_cast<long long>(done < 0 ? 0 : done),
                  static_cast<long long>(wanted));
  }
  // errno is the failed call's where MPI-IO left it: said only where it names a cause.
  const bool cause = err == ENOSPC || err == EDQUOT || err == EFBIG || err == EIO || err == EROFS;
  const char* why = cause               ? std::strerror(err)
                    : rc == MPI_SUCCESS ? "the file system took no more (full, over quota, or at a file-size limit?)"
                                        : nullptr;
  std::snprintf(g_error, sizeof g_error, "%s%s%s", what, why != nullptr ? ": " : "", why != nullptr ? why : "");
}

MPI_Count bytes_of(int count, MPI_Datatype type) {
  MPI_Count size = 0;
  PMPI_Type_size_x(type, &size);
  return size == MPI_UNDEFINED ? -1 : size * count;
}

int pretend_written(MPI_Status* status, int count, MPI_Datatype type) {
  if (status != MPI_STATUS_IGNORE) {
    // HDF5 counts the bytes written: MPI_Get_elements_x on its types, which are made of bytes.
    PMPI_Status_set_elements_x(status, MPI_BYTE, bytes_of(count, type));
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_ERROR = MPI_SUCCESS;
  }
  return MPI_SUCCESS;
}
}  // namespace detail

void watch_trace_file(MPI_File file) {
  detail::g_error[0] = '\0';
  detail::g_trace_file = file;
  detail::g_trace_file_state.store(detail::kWritingTraceFile, std::memory_order_release);
}

void unwatch_trace_file() {
  detail::g_trace_file_state.store(detail::kNoTraceFile, std::memory_order_release);
  detail::g_trace_file = MPI_FILE_NULL;
}

void discard_trace_file_writes() {
  int writing = detail::kWritingTraceFile;
  detail::g_trace_file_state.compare_exchange_strong(writing, detail::kDiscardingTraceFile);
}

const char* trace_file_error() { return detail::g_error; }

}  // namespace ripple::trace
