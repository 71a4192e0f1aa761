#pragma once
// The Physical Oscillator Model fitted to a trace, as a `ripple sim` configuration (TOML): one
// oscillator per rank, the trace's communication graph as a `file` topology, each rank's t_comp and
// t_comm (medians of its iterations' compute and wait, what was injected left out), the protocol
// (most messages' size against the eager limit: beta 1 or 2), kappa by the paper's rule (the sum of
// the stencil's distances, or the longest where a rank's requests of an iteration complete in one
// wait), a kick at every injected delay (in the middle of the rank's compute in that iteration, by
// the trace's clock until compare.cpp places it by the model's own),
// noise from the compute residuals, and iteration crossings on; `wait` its own t_comm and tau.
// MPI-free: compare.cpp runs it through a runner the command gives it.
#include <optional>
#include <string>
#include <vector>

#include "ripple/analysis/iteration_table.hpp"
#include "ripple/analysis/program.hpp"
#include "ripple/analysis/timeline_model.hpp"

namespace ripple::analysis {

struct PomFit {
  int oscillators = 0;
  std::vector<double> t_comp, t_comm;  // per rank, s
  int beta = 1;                        // 1 eager, 2 rendezvous
  double kappa_sum = 0, kappa_max = 0;
  bool one_wait = false;                   // a rank's requests of an iteration complete in one wait: kappa = kappa_max
  std::vector<std::pair<int, int>> edges;  // the graph, both directions
  bool all_to_all = false;
  struct Kick {
    int rank;
    int column;  // the trace's iteration, as a column of its table
    double time, delay;
  };
  std::vector<Kick> kicks;
  double noise_amplitude = 0;  // mean extra compute per period, relative
  // `wait`: its t_comm is each rank's own communication cost, what its calls cost when they need
  // not wait (the max-plus model's call costs, medians; at least 1 % of t_comp), and its tau the
  // latency of a message (the median alpha + beta m). The traced wait is not a rank's own: a rank
  // whose partner is slower waits out the difference every iteration, and its t_comp + t_comm
  // would make it run slower on its own.
  std::vector<double> own_comm;
  double latency = 0;
  int iterations = 0;  // timed iterations to simulate
  [[nodiscard]] double kappa() const { return one_wait ? kappa_max : kappa_sum; }
  [[nodiscard]] double period() const;  // mean of t_comp + t_comm
  // The paper's coupling v_p = beta kappa / T.
  [[nodiscard]] double paper_coupling() const { return beta * kappa() / period(); }
  // What `ripple sim` takes for v_p when the configuration names none: the paper's coupling, or for
  // `wait` (whose v_p is its hold's steepness) its own default, 100 / T.
  [[nodiscard]] double default_coupling(const std::string& potential) const;
};

PomFit fit_pom(const IterationTable& trace, const Program& p, const TimelineParams& params);

// The configuration (TOML) for `potential`, with `strength` (v_p, 1/s) if given, else the paper's;
// the topology read from `edges_file` (write_edges), the output to `output`.
std::string pom_config(const PomFit& f, const std::string& potential, std::optional<double> strength,
                       const std::string& edges_file, const std::string& output);
std::string edges_text(const PomFit& f);

}  // namespace ripple::analysis
