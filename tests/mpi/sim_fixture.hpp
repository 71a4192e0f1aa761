#pragma once
// Runs `ripple sim` in-process on MPI_COMM_WORLD and reads the result back.
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "ripple/model/mpi/simulator.hpp"
#include "ripple/model/sim_reader.hpp"

namespace ripple::test {

struct SimRun {
  model::SimStats stats;
  std::unique_ptr<model::SimReader> out;
  // Phase of oscillator i at stored time k.
  std::vector<double> phases;
  std::int64_t n = 0;
  [[nodiscard]] double phase(std::int64_t k, std::int64_t i) const { return phases[static_cast<size_t>(k * n + i)]; }
};

// `toml` is a configuration without [output] file; every rank of `comm` gets the same result.
// `iterations`: SimOptions' iteration_flush_periods and iteration_window_columns (0: defaults). A
// run on MPI_COMM_SELF (a serial reference beside a run on all ranks) is called by one rank alone.
struct IterationWrites {
  double flush_periods = 0;
  std::int64_t window_columns = 0;
};
SimRun run_sim(const std::string& toml, const std::vector<std::string>& overrides = {}, IterationWrites iterations = {},
               MPI_Comm comm = MPI_COMM_WORLD);

}  // namespace ripple::test
