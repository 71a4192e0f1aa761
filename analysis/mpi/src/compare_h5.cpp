#include "ripple/analysis/mpi/compare_h5.hpp"

#include <fmt/format.h>

#include "ripple/analysis/compare_report.hpp"
#include "ripple/common/hdf5_parallel.hpp"
#include "ripple/common/mpi_util.hpp"
#include "ripple/common/provenance.hpp"

namespace ripple::analysis {

void write_compare_h5(MPI_Comm comm, const std::string& path, const CompareResult& r, int argc, char** argv) {
  ParallelH5File f;
  run_collectively(comm, [&] { f = ParallelH5File::create(comm, path); });
  const bool writer = comm_rank(comm) == 0;
  abort_on_error(comm, [&] {
    write_attribute(f.id(), "schema", std::string(kCompareSchema));
    write_attribute(f.id(), "schema_version", static_cast<std::int64_t>(kCompareVersion));
    write_provenance(f.id(), collect_provenance(comm, argc, argv));
    write_attribute(f.id(), "input", r.input);
    write_attribute(f.id(), "period", r.period);
    write_attribute(f.id(), "delay", r.delay);
    std::string notes;
    for (const std::string& n : r.notes) notes += n + "\n";
    write_attribute(f.id(), "notes", notes);
    const IterationTable& trace = r.runs.front().table;
    write_attribute(f.id(), "first_iteration", static_cast<std::int64_t>(trace.first_iteration));
    H5Id runs(RIPPLE_H5_CHECK(H5Gcreate2(f.id(), "/runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
    std::size_t pom = 0;
    for (std::size_t i = 0; i < r.runs.size(); ++i) {
      const ModelRun& run = r.runs[i];
      const std::string group = fmt::format("/runs/{:02}", i);
      H5Id g(RIPPLE_H5_CHECK(H5Gcreate2(f.id(), group.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
      write_attribute(g.get(), "name", run.name);
      write_attribute(g.get(), "end_error", run.end_error);
      write_attribute(g.get(), "lag_error", run.lag_error);
      write_attribute(g.get(), "coupling", run.coupling);
      write_attribute(g.get(), "first_iteration", static_cast<std::int64_t>(run.table.first_iteration));
      // The largest delay's wave: where it came from (-1: none).
      const Wave* wave = nullptr;
      for (const Wave& w : run.waves.waves)
        if (wave == nullptr || w.source.delay > wave->source.delay) wave = &w;
      write_attribute(g.get(), "wave_rank", static_cast<std::int64_t>(wave == nullptr ? -1 : wave->source.rank));
      write_attribute(g.get(), "wave_iteration", static_cast<std::int64_t>(wave == nullptr ? -1 : wave->source.iteration));
      if (run.name.starts_with("POM") && !run.name.ends_with("fitted") && pom < r.pom_configs.size())
        write_attribute(g.get(), "config", r.pom_configs[pom++]);
      const IterationTable& t = run.table;
      const std::vector<double> lag = lags(t);
      for (const auto& [name, values] : {std::pair<const char*, const std::vector<double>*>{"end", &t.end},
                                         {"wait", &t.wait},
                                         {"compute", &t.compute},
                                         {"lag", &lag}}) {
        const std::vector<hsize_t> shape{static_cast<hsize_t>(t.ranks), static_cast<hsize_t>(t.iterations)};
        H5Id ds = create_dataset(f.id(), group + "/" + name, shape);
        write_block(f, ds.get(), {0, 0}, writer ? shape : std::vector<hsize_t>{0, 0}, values->data());
      }
    }
    runs.reset();
    f.close();
  });
}

}  // namespace ripple::analysis
