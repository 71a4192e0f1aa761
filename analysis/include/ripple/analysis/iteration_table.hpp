#pragma once
// The iteration table: what every rank did in every iteration. Every analysis reads it; it is built
// from a trace (trace_table.hpp), a proxy app's JSON timings (timings_table.hpp) or a simulation's
// iteration crossings (sim_table.hpp). Memory is O(ranks x iterations), whatever the input's size.
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ripple/analysis/comm_graph.hpp"

namespace ripple::analysis {

enum class TableSource { Trace, Timings, Simulation };
const char* source_name(TableSource s);  // "trace", "timings", "simulation"

struct IterationTable {
  TableSource source = TableSource::Trace;
  std::string input;        // the file it was built from
  std::string description;  // one line: what ran, how iterations were delimited
  int ranks = 0;            // ranks, or oscillators of a simulation
  int first_iteration = 0;  // the iteration number of column 0
  int iterations = 0;
  // Per cell [rank * iterations + column], seconds; NaN where the rank has no such iteration.
  // end: when the iteration ended (the trace's clock, the app's time since its common start, or the
  // simulation's time); compute: time outside MPI (a simulation: the free-running period); wait:
  // time inside MPI (a simulation: how much later the crossing came than free running would have
  // brought it, against the previous one; negative where it was pulled ahead).
  std::vector<double> end, compute, wait;
  // Point-to-point messages and bytes per cell (traces only; empty otherwise).
  std::vector<std::int64_t> msgs_sent, bytes_sent, msgs_recv, bytes_recv;
  // Injected work, seconds, by (rank, iteration number): the trace's delay markers or the
  // simulation's kicks. `has_injected` says whether the input can carry it at all.
  std::map<std::pair<int, int>, double> injected;
  bool has_injected = false;
  CommGraph graph;
  // Waves show in the wait accumulated since the source, not in one iteration's: a simulation's
  // lag spreads over many iterations as coupling drags the neighbours back a little at a time.
  bool cumulative = false;
  std::vector<std::string> notes;  // what a reader should know (ranks without iterations, ...)

  void resize(int ranks_, int first, int count, bool messages);
  [[nodiscard]] std::size_t at(int rank, int column) const {
    return static_cast<std::size_t>(rank) * static_cast<std::size_t>(iterations) + static_cast<std::size_t>(column);
  }
  [[nodiscard]] double start(int rank, int column) const {
    const std::size_t i = at(rank, column);
    return end[i] - compute[i] - wait[i];
  }
  [[nodiscard]] double injected_at(int rank, int iteration) const {
    const auto it = injected.find({rank, iteration});
    return it == injected.end() ? 0.0 : it->second;
  }
  [[nodiscard]] bool has_messages() const { return !msgs_sent.empty(); }
};

// Builds the table from any input Ripple knows: a trace, a simulation (both HDF5, told apart by
// their schema attribute) or a proxy app's JSON summary. `iteration_call` (traces only): a call
// that ends each iteration, for programs without markers ("" = use the markers). Throws
// InputError with one line for anything else.
IterationTable load_table(const std::string& path, const std::string& iteration_call = "");

}  // namespace ripple::analysis
