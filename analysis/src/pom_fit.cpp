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
  return potential == "wait" ? model::kWaitStrengthPerPeriod / period() : paper_coupling();
}

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
  // Kicks: the injected delays, at the end of the rank's compute in their iteration.
  for (const auto& [key, seconds] : t.injected) {
    const auto [rank, iteration] = key;
    const double period = f.t_comp[static_cast<std::size_t>(rank)] + f.t_comm[static_cast<std::size_t>(rank)];
    f.kicks.push_back({rank, (iteration - t.first_iteration) * period + f.t_comp[static_cast<std::size_t>(rank)], seconds});
  }
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
  for (std::size_t i = 0; i < f.t_comp.size(); ++i) longest = std::max(longest, f.t_comp[i] + f.t_comm[i]);
  const double t_end = (f.iterations + 1) * longest;
  std::string s = "# the Physical Oscillator Model fitted to a trace by ripple compare\n[model]\n";
  s += fmt::format("oscillators = {}\nt_comp = {}\nt_comm = {}\npotential = \"{}\"\nprotocol = \"{}\"\nkappa = {:.17g}\n",
                   f.oscillators, list(f.t_comp), list(f.t_comm), potential, f.beta == 2 ? "rendezvous" : "eager", f.kappa());
  if (strength) s += fmt::format("strength = {:.17g}\n", *strength);
  s += f.all_to_all ? "[topology]\nkind = \"all\"\n" : fmt::format("[topology]\nkind = \"file\"\nfile = \"{}\"\n", edges_file);
  if (f.noise_amplitude > 0) s += fmt::format("[noise]\nkind = \"exponential\"\namplitude = {:.17g}\n", f.noise_amplitude);
  for (const PomFit::Kick& k : f.kicks)
    s += fmt::format("[[kick]]\noscillator = {}\ntime = {:.17g}\ndelay = {:.17g}\n", k.rank, k.time, k.delay);
  s += fmt::format("[solver]\nt_end = {:.17g}\n[output]\nfile = \"{}\"\ninterval = {:.17g}\niterations = true\n", t_end, output,
                   t_end / 4);
  return s;
}

}  // namespace ripple::analysis
