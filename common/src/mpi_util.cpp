#include "ripple/common/mpi_util.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "ripple/common/error.hpp"

namespace ripple {
namespace detail {
void mpi_failed(const char* call, int rc, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(fmt::format("MPI call {} failed: {} ({}:{})", call, std::string(text, static_cast<size_t>(len)), file, line));
}
}  // namespace detail

int launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* r = std::getenv(name)) return std::atoi(r);
  return 0;
}

int after_rank_zero_spoke(int code) {
  if (code != 0 && launcher_rank() != 0) std::this_thread::sleep_for(std::chrono::seconds(2));
  return code;
}

int comm_rank(MPI_Comm comm) {
  int r = 0;
  RIPPLE_MPI_CHECK(MPI_Comm_rank(comm, &r));
  return r;
}

int comm_size(MPI_Comm comm) {
  int s = 0;
  RIPPLE_MPI_CHECK(MPI_Comm_size(comm, &s));
  return s;
}

void run_collectively(MPI_Comm comm, const std::function<void()>& step) {
  std::string message;
  int kind = 0;
  try {
    step();
  } catch (const Error& e) {
    message = e.what();
    kind = e.exit_code();
  } catch (const std::exception& e) {
    message = e.what();
    kind = 1;
  }
  const int me = comm_rank(comm);
  int failing = kind != 0 ? me : comm_size(comm);
  RIPPLE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &failing, 1, MPI_INT, MPI_MIN, comm));
  if (failing == comm_size(comm)) return;
  int len = static_cast<int>(message.size());
  RIPPLE_MPI_CHECK(MPI_Bcast(&len, 1, MPI_INT, failing, comm));
  RIPPLE_MPI_CHECK(MPI_Bcast(&kind, 1, MPI_INT, failing, comm));
  message.resize(static_cast<size_t>(len));
  RIPPLE_MPI_CHECK(MPI_Bcast(message.data(), len, MPI_CHAR, failing, comm));
  throw AgreedError(message, static_cast<Error::Kind>(kind));
}

void abort_on_error(MPI_Comm comm, const std::function<void()>& step) {
  try {
    step();
  } catch (const AgreedError&) {
    throw;
  } catch (const std::exception& e) {
    const Error* err = dynamic_cast<const Error*>(&e);
    std::fprintf(stderr, "ripple: error on rank %d: %s\n", comm_rank(comm), e.what());
    std::fflush(stderr);
    MPI_Abort(comm, err != nullptr ? err->exit_code() : 1);
  }
}

int run_mpi_main(int argc, char** argv, const std::function<int(MPI_Comm)>& body) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  const MPI_Comm comm = MPI_COMM_WORLD;
  int code = 0;
  try {
    code = body(comm);
  } catch (const AgreedError& e) {
    if (comm_rank(comm) == 0) std::fprintf(stderr, "ripple: error: %s\n", e.what());
    code = e.exit_code();
  } catch (const std::exception& e) {
    const Error* err = dynamic_cast<const Error*>(&e);
    code = err != nullptr ? err->exit_code() : 1;
    std::fprintf(stderr, "ripple: error on rank %d: %s\n", comm_rank(comm), e.what());
    std::fflush(stderr);
    MPI_Abort(comm, code);
  }
  MPI_Finalize();
  return code;
}

}  // namespace ripple
