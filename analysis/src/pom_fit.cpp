#include "ripple/analysis/pom_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "ripple/analysis/stats.hpp"
#include "ripple/model/oscillators.hpp"

namespace ripple::analysis {

double PomFit::period() const {
  double sum = 0;
  for (std::size_t i = 0; i < t_comp.size(); ++i) sum += t_comp[i] + t_comm[i];
  return t_comp.empty() ? 0.0 : sum / static_cast<double>(t_comp.size());
}

double PomFit::default_coupling(const std::string& potential) const {
  if (potential != "wait") return paper_coupling();
  double sum = 0;  // the mean period of the configuration `wait` runs
  for (std::size_t i = 0; i < t_comp.size(); ++i) sum += t_comp[i] + own_comm[i];
  return model::kWaitStrengthPerPeriod * static_cast<double>(t_comp.size()) / sum;
}

namespace {

// `wait`'s own communication part and latency (PomFit::own_comm, latency): per rank the median over
// its iterations of what its calls cost when they need not wait (the max-plus model's costs), and
// the median message's alpha + beta m.
void fit_wait(PomFit& f, const Program& p, const TimelineParams& params) {
  std::map<std::pair<int, int>, double> cost;  // (rank, iteration) -> s
  for (const Op& op : p.ops) {
    if (op.iteration < 0) continue;
    const auto call = static_cast<std::size_t>(op.call);
    switch (op.kind) {
      case CallKind::Send:
      case CallKind::Isend:
      case CallKind::Sendrecv:
      case CallKind::Recv:
      case CallKind::Irecv:
      case CallKind::Wait:
        cost[{op.rank, op.iteration}] += call < params.call_cost.size() ? params.call_cost[call] : 0.0;
        break;
      case CallKind::Collective:
      case CallKind::Icollective:
        cost[{op.rank, op.iteration}] += call < params.collective_cost.size() ? params.collective_cost[call] : 0.0;
        break;
      default:
        break;
    }
  }
  std::vector<std::vector<double>> per_rank(static_cast<std::size_t>(f.oscillators));
  for (const auto& [key, seconds] : cost) per_rank[static_cast<std::size_t>(key.first)].push_back(seconds);
  for (int r = 0; r < f.oscillators; ++r) {
    const double c = median(per_rank[static_cast<std::size_t>(r)]);
    // At least 1 % of the compute: the hold ramps within this part (and t_comm > 0 is required).
    f.own_comm.push_back(std::max(std::isfinite(c) ? c : 0.0, 0.01 * f.t_comp[static_cast<std::size_t>(r)]));
  }
  std::vector<double> transfer;
  for (const Message& m : p.messages) transfer.push_back(params.alpha + params.beta * static_cast<double>(m.bytes));
  const double tau = transfer.empty() ? 0.0 : median(transfer);
  f.latency = std::isfinite(tau) && tau > 0 ? tau : 0.5 * median(f.own_comm);
}

}  // namespace

PomFit fit_pom(const IterationTable& t, const Program& p, const TimelineParams& params) {
  PomFit f;
  f.oscillators = t.ranks;
  f.iterations = t.iterations;
  // Per rank: the medians of its iterations' compute (less what was injected) and wait.
  std::vector<double> residuals;
  for (int r = 0; r < t.ranks; ++r) {
    std::vector<double> compute, wait;
    for (int c = 0; c < t.iterations; ++c) {
      const std::size_t at = t.at(r, c);
      compute.push_back(t.compute[at] - t.injected_at(r, t.first_iteration + c));
      wait.push_back(t.wait[at]);
    }
    const double m = median(compute);
    f.t_comp.push_back(std::isfinite(m) && m > 0 ? m : 1e-6);
    const double w = median(wait);
    f.t_comm.push_back(std::isfinite(w) && w > 0 ? w : 0.0);
    for (const double x : compute)
      if (std::isfinite(x)) residuals.push_back(x - m);
  }
  // Noise: the positive residuals' mean per iteration, over the period (the model's noise only
  // ever costs time).
  double extra = 0;
  for (const double x : residuals) extra += std::max(0.0, x);
  f.noise_amplitude = residuals.empty() ? 0.0 : extra / static_cast<double>(residuals.size()) / f.period();

  // The graph, the stencil's distances and kappa.
  for (int a = 0; a < t.ranks; ++a)
    for (const int b : t.graph.neighbours(a)) f.edges.emplace_back(a, b);
  f.all_to_all = t.graph.all_to_all();
  const int middle = t.ranks / 2;
  for (const int b : t.graph.neighbours(middle)) {
    const double d = std::abs(t.graph.offset(middle, b));
    f.kappa_sum += d;
    f.kappa_max = std::max(f.kappa_max, d);
  }
  if (f.kappa_sum == 0) f.kappa_sum = f.kappa_max = 1;
  // One wait per iteration for a rank's receives? (Most iterations of the middle rank say.)
  std::map<int, int> waits_per_iteration;
  for (const Op& op : p.ops) {
    if (op.rank != middle || op.iteration < 0 || op.kind != CallKind::Wait) continue;
    bool receives = false;
    for (std::int32_t k = 0; k < op.wait_count; ++k)
      receives = receives || p.wait_messages[static_cast<std::size_t>(op.waits + k)].recv;
    if (receives) ++waits_per_iteration[op.iteration];
  }
  int one = 0;
  for (const auto& [it, n] : waits_per_iteration) one += n == 1 ? 1 : 0;
  f.one_wait = !waits_per_iteration.empty() && 2 * one >= static_cast<int>(waits_per_iteration.size());
  // The protocol of most messages.
  std::int64_t rendezvous = 0;
  for (const Message& m : p.messages) rendezvous += params.rendezvous(m) ? 1 : 0;
  f.beta = 2 * rendezvous > static_cast<std::int64_t>(p.messages.size()) ? 2 : 1;
  // Kicks: the injected delays, in the middle of the rank's compute in their iteration (where in
  // the compute does not matter to `wait`, which holds processes at iteration ends only).
  for (const auto& [key, seconds] : t.injected) {
    const auto [rank, iteration] = key;
    const double period = f.t_comp[static_cast<std::size_t>(rank)] + f.t_comm[static_cast<std::size_t>(rank)];
    const int column = iteration - t.first_iteration;
    f.kicks.push_back({rank, column, column * period + 0.5 * f.t_comp[static_cast<std::size_t>(rank)], seconds});
  }
  fit_wait(f, p, params);
  return f;
}

std::string edges_text(const PomFit& f) {
  std::string s = "# the traced run's communication graph (ripple compare)\n";
  for (const auto& [a, b] : f.edges) s += fmt::format("{} {}\n", a, b);
  return s;
}

std::string pom_config(const PomFit& f, const std::string& potential, std::optional<double> strength,
                       const std::string& edges_file, const std::string& output) {
  const auto list = [](const std::vector<double>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += fmt::format("{}{:.17g}", i ? ", " : "", v[i]);
    return s + "]";
  };
  double longest = 0;
  for (std::size_t i = 0; i < f.t_comp.size(); ++i)
    longest = std::max(longest, f.t_comp[i] + std::max({f.t_comm[i], f.own_comm[i], f.latency}));
  double delays = 0;  // the run's end moves by at most the sum of its delays
  for (const PomFit::Kick& k : f.kicks) delays += k.delay;
  const double t_end = (f.iterations + 1) * longest + delays;
  std::string s = "# the Physical Oscillator Model fitted to a trace by ripple compare\n[model]\n";
  s += fmt::format("oscillators = {}\nt_comp = {}\nt_comm = {}\npotential = \"{}\"\nprotocol = \"{}\"\nkappa = {:.17g}\n",
                   f.oscillators, list(f.t_comp), list(potential == "wait" ? f.own_comm : f.t_comm), potential,
                   f.beta == 2 ? "rendezvous" : "eager", f.kappa());
  if (strength) s += fmt::format("strength = {:.17g}\n", *strength);
  s += f.all_to_all ? "[topology]\nkind = \"all\"\n" : fmt::format("[topology]\nkind = \"file\"\nfile = \"{}\"\n", edges_file);
  if (potential == "wait") s += fmt::format("[delay]\nmean = {:.17g}\n", f.latency);
  if (f.noise_amplitude > 0) s += fmt::format("[noise]\nkind = \"exponential\"\namplitude = {:.17g}\n", f.noise_amplitude);
  for (const PomFit::Kick& k : f.kicks)
    s += fmt::format("[[kick]]\noscillator = {}\ntime = {:.17g}\ndelay = {:.17g}\n", k.rank, k.time, k.delay);
  s += fmt::format("[solver]\nt_end = {:.17g}\n[output]\nfile = \"{}\"\ninterval = {:.17g}\niterations = true\n", t_end, output,
                   t_end / 4);
  return s;
}

}  // namespace ripple::analysis
