#pragma once
// `ripple compare -o RESULT.h5`: the comparison as an HDF5 file (schema ripple-compare,
// docs/compare.md), what `ripple plot compare` draws.
#include <mpi.h>

#include <string>

#include "ripple/analysis/compare.hpp"

namespace ripple::analysis {

// Collective: every rank holds the same result; rank 0's data are written.
void write_compare_h5(MPI_Comm comm, const std::string& path, const CompareResult& r, int argc, char** argv);

}  // namespace ripple::analysis
