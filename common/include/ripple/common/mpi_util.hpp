#pragma once
// MPI helpers shared by every module: the return-code check and collective error agreement.
#include <mpi.h>

#include <functional>
#include <string>

#include "ripple/common/error.hpp"
#include "ripple/common/launcher.hpp"

#define RIPPLE_MPI_CHECK(call)                                                                                  \
  do {                                                                                                          \
    const int ripple_mpi_rc_ = (call);                                                                          \
    if (ripple_mpi_rc_ != MPI_SUCCESS) ::ripple::detail::mpi_failed(#call, ripple_mpi_rc_, __FILE__, __LINE__); \
  } while (0)

namespace ripple {
namespace detail {
[[noreturn]] void mpi_failed(const char* call, int rc, const char* file, int line);
}

int comm_rank(MPI_Comm comm);
int comm_size(MPI_Comm comm);

// An error that every rank of a communicator has agreed on (thrown by run_collectively).
class AgreedError : public Error {
public:
  AgreedError(const std::string& what, Kind kind) : Error(what, kind) {}
};

// Runs `step` on every rank of `comm`; if it throws on any rank, every rank throws the AgreedError of
// the lowest failing rank (same message, same kind), so that all ranks exit together and nobody hangs.
// Wrap every step that may fail on some ranks only (file access, input validation, allocation).
void run_collectively(MPI_Comm comm, const std::function<void()>& step);

// Runs `step`, inside which every rank may be in collectives: an error on one rank cannot be agreed
// on, so that rank prints it and calls MPI_Abort at once, before unwinding (destructors of collective
// objects such as HDF5 files would wait for the other ranks forever). AgreedErrors pass through.
void abort_on_error(MPI_Comm comm, const std::function<void()>& step);

// Entry point wrapper for MPI subcommands: initialises MPI, runs body. An AgreedError is printed once
// by rank 0 and returned as the exit code (1 runtime, 2 bad input) after MPI_Finalize; any other
// escaping exception can leave other ranks inside a collective, so that rank prints it and calls
// MPI_Abort.
int run_mpi_main(int argc, char** argv, const std::function<int(MPI_Comm)>& body);

}  // namespace ripple
