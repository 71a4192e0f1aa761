#include "ripple/analysis/mpi/pom_runner.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "ripple/analysis/sim_table.hpp"
#include "ripple/common/mpi_util.hpp"
#include "ripple/common/provenance.hpp"
#include "ripple/common/text_file.hpp"
#include "ripple/model/config.hpp"
#include "ripple/model/mpi/simulator.hpp"

namespace ripple::analysis {

PomRunner make_pom_runner(MPI_Comm comm, const std::string& work_dir) {
  return [comm, work_dir](const PomFit& fit, const std::string& potential, std::optional<double> strength) {
    static int runs = 0;
    // Rank 0's process id names the run's files: the same name on every rank.
    long id = static_cast<long>(::getpid());
    RIPPLE_MPI_CHECK(MPI_Bcast(&id, 1, MPI_LONG, 0, comm));
    const std::string base = fmt::format("{}/.ripple-compare-{}-{}", work_dir, id, ++runs);
    const std::string edges = fmt::format("{}-rank{}.edges", base, comm_rank(comm)), output = base + ".h5";
    model::SimConfig cfg;
    run_collectively(comm, [&] {
      write_text_file(edges, edges_text(fit), "the oscillator model's topology");  // each rank its own: /tmp need not be shared
      cfg = model::parse_config(pom_config(fit, potential, strength, edges, output),
                                "the oscillator model fitted by ripple compare");
    });
    model::SimOptions options;
    options.force = true;
    options.progress = false;
    char name[] = "ripple-compare";
    char* argv[] = {name, nullptr};
    model::simulate(comm, cfg, collect_provenance(comm, 1, argv), options);
    IterationTable table;
    run_collectively(comm, [&] { table = table_from_sim(output); });
    std::error_code ignored;
    std::filesystem::remove(edges, ignored);
    RIPPLE_MPI_CHECK(MPI_Barrier(comm));
    if (comm_rank(comm) == 0) std::filesystem::remove(output, ignored);
    return table;
  };
}

}  // namespace ripple::analysis
