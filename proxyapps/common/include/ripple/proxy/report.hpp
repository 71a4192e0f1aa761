#pragma once
// Results of a proxy-app run: the checksum of the global result and the JSON summary.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ripple/common/hdf5_parallel.hpp"
#include "ripple/proxy/iteration_loop.hpp"

namespace ripple::proxy {

// A hash of a global array that is equal whenever the arrays are bitwise equal, whatever their
// distribution: the wrapping sum over elements of a mix of (global index, bits of the value).
class Checksum {
public:
  void add(std::uint64_t global_index, double value);
  // Combines every rank's part. Collective.
  [[nodiscard]] std::uint64_t global(MPI_Comm comm) const;

private:
  std::uint64_t sum_ = 0;
};

std::string hex(std::uint64_t v);

// Writes the JSON summary on rank 0: `fields` are (key, JSON value) pairs in order, followed by
// "timings": per rank, per timed iteration, compute and comm seconds and the iteration's end time.
// Collective.
void write_summary(MPI_Comm comm, const std::string& path, const std::vector<std::pair<std::string, std::string>>& fields,
                   const IterationTimes& times);

// Writes an app's final result: creates `path` collectively, with the space for `data_bytes` of
// datasets reserved first (a bad path is an agreed InputError, exit code 2; a file system without
// that room an agreed Error, exit code 1; neither leaves a file), stamps schema, schema_version 1 and
// provenance, runs `write` (an error there aborts the job, every rank being inside collectives) and
// closes the file.
void write_result_file(MPI_Comm comm, const std::string& path, const std::string& schema, int argc, char** argv,
                       double data_bytes, const std::function<void(const ParallelH5File&)>& write);

// JSON helpers.
std::string json_string(const std::string& s);
std::string json_number(double v);
// The JSON's compute_time: the sleep phase's seconds, or null under --work compute (none).
std::string sleep_phase_json(const CommonOptions& o, double seconds);

}  // namespace ripple::proxy
