#pragma once
// Runs `ripple sim` in-process on MPI_COMM_WORLD and reads the result back.
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

// `toml` is a configuration without [output] file; every rank gets the same result.
SimRun run_sim(const std::string& toml, const std::vector<std::string>& overrides = {});

}  // namespace ripple::test
