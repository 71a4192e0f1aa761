#pragma once
// The oscillator model run in-process on MPI for `ripple compare`: the fitted configuration into a
// temporary file beside the trace (which every rank of a job sees), `ripple sim`'s own solver, then
// the run's iteration table, on every rank.
#include <mpi.h>

#include <string>

#include "ripple/analysis/compare.hpp"

namespace ripple::analysis {

// `work_dir`: where the temporary files go (removed after each run).
PomRunner make_pom_runner(MPI_Comm comm, const std::string& work_dir);

}  // namespace ripple::analysis
