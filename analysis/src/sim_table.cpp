#include "ripple/analysis/sim_table.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "ripple/common/error.hpp"
#include "ripple/model/config.hpp"
#include "ripple/model/sim_reader.hpp"
#include "ripple/model/topology.hpp"

namespace ripple::analysis {
namespace {

// The configuration's topology as a graph; a topology file that cannot be read here (a relative
// path, say) leaves the oscillators in a chain, with a note.
CommGraph sim_graph(const model::SimConfig& cfg, int n, std::vector<std::string>& notes) {
  CommGraph g(n);
  try {
    const model::Topology topo = model::Topology::from_config(cfg.topology, n);
    if (topo.kind() == model::TopologyKind::All) {
      g.set_all_to_all(true);
    } else {
      std::vector<std::int64_t> nb;
      for (int i = 0; i < n; ++i) {
        topo.neighbours(i, nb);
        for (const std::int64_t j : nb) g.add_edge(i, static_cast<int>(j));
      }
    }
    g.set_periodic(topo.kind() == model::TopologyKind::Ring);
    g.set_description(fmt::format("the simulation's topology ({})", cfg.topology.kind == model::TopologyKind::File
                                                                        ? "file " + cfg.topology.file
                                                                        : std::string("from its configuration")));
  } catch (const Error& e) {
    for (int i = 0; i + 1 < n; ++i) g.add_edge(i, i + 1);
    g.set_description("a chain (the topology could not be rebuilt)");
    notes.push_back(fmt::format("topology not rebuilt ({}): neighbours in index order assumed", e.what()));
  }
  g.finish();
  return g;
}

}  // namespace

IterationTable table_from_sim(const std::string& path) {
  const model::SimReader reader(path);
  if (!reader.has_iteration_end())
    throw InputError(
        fmt::format("{}: a simulation without iteration crossings: run ripple sim with [output] iterations = true", path));
  const std::int64_t n64 = reader.oscillators();
  const std::int64_t k64 = reader.iterations();
  if (n64 > std::numeric_limits<int>::max() || k64 > std::numeric_limits<int>::max())
    throw InputError(fmt::format("{}: {} oscillators x {} iterations is beyond this analysis", path, n64, k64));
  if (k64 == 0) throw InputError(fmt::format("{}: no oscillator completed an iteration before t_end", path));
  const int n = static_cast<int>(n64), iterations = static_cast<int>(k64);
  const model::SimConfig cfg = model::parse_config(reader.config(), path);
  const std::vector<double> omega = reader.omega();
  const std::vector<double> theta0 = reader.phase_row(0);

  IterationTable t;
  t.source = TableSource::Simulation;
  t.input = path;
  t.resize(n, 0, iterations, false);
  constexpr double kTwoPi = 2 * std::numbers::pi;
  constexpr std::int64_t kPiece = 4096;  // oscillators per read
  for (std::int64_t first = 0; first < n64; first += kPiece) {
    const std::int64_t count = std::min(kPiece, n64 - first);
    const std::vector<double> ends = reader.iteration_end_rows(first, count);
    for (std::int64_t i = first; i < first + count; ++i) {
      const double w = omega[static_cast<std::size_t>(i)], p0 = theta0[static_cast<std::size_t>(i)];
      double previous_end = 0, previous_lag = 0;
      for (int k = 0; k < iterations; ++k) {
        const double e = ends[static_cast<std::size_t>((i - first) * k64 + k)];
        if (!std::isfinite(e)) continue;
        const double free_end = (kTwoPi * (k + 1) - p0) / w;  // where free running would have crossed
        const double lag = e - free_end;
        const std::size_t at = t.at(static_cast<int>(i), k);
        t.end[at] = e;
        t.wait[at] = lag - previous_lag;
        t.compute[at] = e - previous_end - t.wait[at];
        previous_end = e;
        previous_lag = lag;
      }
    }
  }
  // Kicks: the iteration an oscillator was in when it was kicked. The kick is its own work (as an
  // injected delay is a rank's compute), not time it waited for others.
  t.has_injected = true;
  for (const model::Kick& kick : cfg.kicks) {
    const int i = static_cast<int>(kick.oscillator);
    int k = 0;
    while (k < iterations && std::isfinite(t.end[t.at(i, k)]) && t.end[t.at(i, k)] <= kick.time) ++k;
    if (k >= iterations) continue;
    t.injected[{i, k}] += kick.delay;
    const std::size_t at = t.at(i, k);
    t.wait[at] -= kick.delay;
    t.compute[at] += kick.delay;
  }
  t.graph = sim_graph(cfg, n, t.notes);
  t.cumulative = true;
  t.description = fmt::format("{} oscillators, {} iterations (phase crossings of 2 pi k)", n, iterations);
  return t;
}

}  // namespace ripple::analysis
