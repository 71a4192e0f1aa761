#include "sim_fixture.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include "ripple/model/config.hpp"

namespace ripple::test {

SimRun run_sim(const std::string& toml, const std::vector<std::string>& overrides, IterationWrites iterations, MPI_Comm comm) {
  static int counter = 0;  // the same on every rank: runs on MPI_COMM_SELF count apart
  static int solo = 0;
  long id = getpid();
  MPI_Bcast(&id, 1, MPI_LONG, 0, comm);
  const std::string tag = comm == MPI_COMM_WORLD ? std::to_string(counter++) : "solo" + std::to_string(solo++);
  const std::string path = ::testing::TempDir() + "ripple_sim_" + std::to_string(id) + "_" + tag + ".h5";
  std::vector<std::string> all = overrides;
  all.push_back("output.file=\"" + path + "\"");
  const model::SimConfig cfg = model::parse_config(toml, "test", all);
  Provenance prov;
  prov.version = "test";
  model::SimOptions options;
  options.force = true;
  options.progress = false;
  options.iteration_flush_periods = iterations.flush_periods;
  options.iteration_window_columns = iterations.window_columns;
  SimRun run;
  run.stats = model::simulate(comm, cfg, prov, options);
  run.out = std::make_unique<model::SimReader>(path);
  run.n = run.out->oscillators();
  run.phases = run.out->phases();
  return run;
}

}  // namespace ripple::test
