#pragma once
// How a file was made: recorded as attributes on the root of every file Ripple writes.
#include <hdf5.h>
#include <mpi.h>

#include <string>

#include "ripple/common/build_info.hpp"

namespace ripple {

struct Provenance {
  std::string version;       // Ripple version
  std::string git_revision;  // of the source tree this binary was built from
  std::string command_line;
  std::string mpi_library;
  std::string slurm_job_id;  // empty outside Slurm
  int ranks = 1;
};

// Collects provenance for this process; command_line joins argv.
Provenance collect_provenance(MPI_Comm comm, int argc, char** argv);

// Writes the provenance attributes (collective when `obj` belongs to a parallel file).
void write_provenance(hid_t obj, const Provenance& p);

}  // namespace ripple
