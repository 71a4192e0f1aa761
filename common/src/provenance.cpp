#include "ripple/common/provenance.hpp"

#include <cstdlib>

#include "ripple/common/hdf5_file.hpp"
#include "ripple/common/mpi_util.hpp"

namespace ripple {

Provenance collect_provenance(MPI_Comm comm, int argc, char** argv) {
  Provenance p;
  p.version = ripple_version();
  p.git_revision = ripple_git_revision();
  for (int i = 0; i < argc; ++i) {
    if (i > 0) p.command_line += ' ';
    p.command_line += argv[i];
  }
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  RIPPLE_MPI_CHECK(MPI_Get_library_version(lib, &len));
  p.mpi_library.assign(lib, static_cast<size_t>(len));
  while (!p.mpi_library.empty() && (p.mpi_library.back() == '\n' || p.mpi_library.back() == '\0')) p.mpi_library.pop_back();
  if (const char* job = std::getenv("SLURM_JOB_ID")) p.slurm_job_id = job;
  p.ranks = comm_size(comm);
  return p;
}

void write_provenance(hid_t obj, const Provenance& p) {
  write_attribute(obj, "ripple_version", p.version);
  write_attribute(obj, "git_revision", p.git_revision);
  write_attribute(obj, "command_line", p.command_line);
  write_attribute(obj, "mpi_library", p.mpi_library);
  write_attribute(obj, "slurm_job_id", p.slurm_job_id);
  write_attribute(obj, "ranks", static_cast<std::int64_t>(p.ranks));
}

}  // namespace ripple
