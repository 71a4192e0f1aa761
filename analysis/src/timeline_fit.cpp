#include "ripple/analysis/timeline_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "ripple/analysis/stats.hpp"

namespace ripple::analysis {
namespace {

bool communicates(CallKind k) {
  return k == CallKind::Send || k == CallKind::Isend || k == CallKind::Sendrecv || k == CallKind::Recv || k == CallKind::Irecv ||
         k == CallKind::Wait || k == CallKind::Collective;
}

// The eager limits the trace recorded (Open MPI's names), where it did.
void eager_limits_from(const std::string& json, TimelineParams& t, std::vector<std::string>& notes) {
  try {
    const auto j = nlohmann::json::parse(json.empty() ? "null" : json);
    if (j.is_object() && j.contains("btl_vader_eager_limit") && j.contains("btl_tcp_eager_limit")) {
      t.eager_same_node = j["btl_vader_eager_limit"].get<std::int64_t>();
      t.eager_other_node = j["btl_tcp_eager_limit"].get<std::int64_t>();
      notes.push_back(fmt::format("eager limits from the trace: {} B within a node (btl_vader), {} B between nodes (btl_tcp)",
                                  t.eager_same_node, t.eager_other_node));
      return;
    }
  } catch (const nlohmann::json::exception&) {
  }
  notes.push_back(
      fmt::format("eager limits not in the trace: Open MPI's defaults assumed, {} B within a node, {} B between "
                  "(--eager-limit to set them)",
                  t.eager_same_node, t.eager_other_node));
}

}  // namespace

TimelineParams fit_timeline(const Program& p, std::int64_t eager_limit, std::vector<std::string>& notes) {
  TimelineParams t;
  if (eager_limit >= 0) {
    t.eager_same_node = t.eager_other_node = eager_limit;
    notes.push_back(fmt::format("eager limit {} B (--eager-limit)", eager_limit));
  } else {
    eager_limits_from(p.eager_limits, t, notes);
  }
  const auto enter = [&](std::int64_t op) {
    return p.events[static_cast<std::size_t>(p.ops[static_cast<std::size_t>(op)].event)].t_enter;
  };
  // Latency: where a wait was entered before the last of its messages was sent (and its receive
  // posted), it ended when that message arrived; its end less that moment is one sample of
  // alpha + beta * bytes.
  std::map<std::int64_t, std::vector<double>> by_size;
  const auto exit = [&](std::int64_t op) {
    return p.events[static_cast<std::size_t>(p.ops[static_cast<std::size_t>(op)].event)].t_exit;
  };
  for (std::size_t i = 0; i < p.ops.size(); ++i) {
    const Op& op = p.ops[i];
    if (op.kind != CallKind::Wait || op.wait_count == 0) continue;
    std::int64_t last = -1;
    double last_post = -HUGE_VAL;
    for (std::int32_t k = 0; k < op.wait_count; ++k) {
      const WaitEntry& w = p.wait_messages[static_cast<std::size_t>(op.waits + k)];
      if (!w.recv || w.message < 0) continue;
      const Message& m = p.messages[static_cast<std::size_t>(w.message)];
      const double post = std::max(enter(m.send_op), enter(m.recv_op));  // rendezvous: both; eager: the later
      if (post > last_post) last_post = post, last = w.message;
    }
    const auto here = static_cast<std::int64_t>(i);
    if (last < 0 || enter(here) >= last_post) continue;  // it was not waiting when the message left
    by_size[p.messages[static_cast<std::size_t>(last)].bytes].push_back(exit(here) - last_post);
  }
  std::vector<double> sizes, latencies;
  std::size_t samples = 0;
  for (const auto& [bytes, l] : by_size) {
    sizes.push_back(static_cast<double>(bytes));
    latencies.push_back(mean(l));
    samples += l.size();
  }
  if (sizes.size() >= 2) {
    const LineFit fit = fit_line(sizes, latencies);
    t.alpha = std::max(0.0, fit.intercept);
    t.beta = std::max(0.0, fit.slope);
  } else if (sizes.size() == 1) {
    t.alpha = std::max(0.0, latencies[0]);
  }
  notes.push_back(samples > 0
                      ? fmt::format("alpha {:.3g} us, beta {:.3g} ns/B from {} messages a rank was waiting for ({} size(s))",
                                    1e6 * t.alpha, 1e9 * t.beta, samples, sizes.size())
                      : std::string("no message a rank was waiting for: alpha = beta = 0"));

  // What each communication call costs when it need not wait: the mean time of its calls that, by
  // the trace's own times, had nothing to wait for (every message they complete sent, or its
  // receive posted for a rendezvous, alpha + beta m before they were entered). The mean, not the
  // median: an iteration's end is the sum of hundreds of such costs, and where ranks share cores a
  // few calls lose the core for a time slice (hpcg on 16 ranks over 2 cores: MPI_Send's median
  // 0.3 us, its mean 20 us, 2 ms an iteration that medians left out). Calls none of which was free:
  // their 10th percentile.
  const auto arrived_by = [&](std::int64_t m, bool recv, double at) {
    if (m < 0) return true;
    const Message& msg = p.messages[static_cast<std::size_t>(m)];
    if (msg.send_op < 0 || msg.recv_op < 0) return true;
    if (!recv && !t.rendezvous(msg)) return true;  // an eager send completes with its call
    const double post = t.rendezvous(msg) ? std::max(enter(msg.send_op), enter(msg.recv_op)) : enter(msg.send_op);
    return post + t.alpha + t.beta * static_cast<double>(msg.bytes) <= at;
  };
  std::vector<std::vector<double>> times(p.call_names.size());
  std::vector<double> free_sum(p.call_names.size(), 0.0);
  std::vector<std::int64_t> free_count(p.call_names.size(), 0);
  for (std::size_t i = 0; i < p.ops.size(); ++i) {
    const Op& op = p.ops[i];
    if (!communicates(op.kind) || op.kind == CallKind::Collective) continue;
    const double at = enter(static_cast<std::int64_t>(i));
    bool free = true;
    if (op.kind == CallKind::Send || op.kind == CallKind::Sendrecv) free = arrived_by(op.message, false, at);
    if (op.kind == CallKind::Recv) free = arrived_by(op.message, true, at);
    if (op.kind == CallKind::Sendrecv) free = free && arrived_by(op.message2, true, at);
    for (std::int32_t k = 0; op.kind == CallKind::Wait && k < op.wait_count; ++k) {
      const WaitEntry& w = p.wait_messages[static_cast<std::size_t>(op.waits + k)];
      free = free && arrived_by(w.message, w.recv, at);
    }
    times[static_cast<std::size_t>(op.call)].push_back(op.duration);
    if (free) free_sum[static_cast<std::size_t>(op.call)] += op.duration, ++free_count[static_cast<std::size_t>(op.call)];
  }
  t.call_cost.assign(p.call_names.size(), 0.0);
  for (std::size_t c = 0; c < times.size(); ++c) {
    auto& v = times[c];
    if (free_count[c] > 0) {
      t.call_cost[c] = free_sum[c] / static_cast<double>(free_count[c]);
    } else if (!v.empty()) {
      const auto tenth = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 10);
      std::nth_element(v.begin(), tenth, v.end());
      t.call_cost[c] = *tenth;
    }
  }

  // Collectives: per call, the median over instances of the time from the last rank's entry to the
  // ranks' median exit (the model lets them all out at once).
  t.collective_cost.assign(p.call_names.size(), 0.0);
  std::vector<double> latest(p.collective_calls.size(), -HUGE_VAL);
  std::vector<std::vector<double>> exits(p.collective_calls.size());
  for (const Op& op : p.ops) {
    if (op.collective < 0) continue;
    const auto k = static_cast<std::size_t>(op.collective);
    const trace::Event& e = p.events[static_cast<std::size_t>(op.event)];
    latest[k] = std::max(latest[k], e.t_enter);
    exits[k].push_back(e.t_exit);
  }
  std::map<std::int32_t, std::vector<double>> costs;
  for (std::size_t k = 0; k < latest.size(); ++k)
    costs[static_cast<std::int32_t>(p.collective_calls[k])].push_back(std::max(0.0, median(exits[k]) - latest[k]));
  for (const auto& [call, c] : costs) t.collective_cost[static_cast<std::size_t>(call)] = mean(c);
  return t;
}

OpTimes replay_times(const Program& p) {
  OpTimes o;
  for (const Op& op : p.ops) {
    o.gap.push_back(op.gap);
    o.local.push_back(op.duration);
  }
  return o;
}

OpTimes predict_times(const Program& p, bool noise, std::uint64_t seed) {
  OpTimes o = replay_times(p);
  // Per (rank, slot, call): the compute before it (less what was injected) and its duration, over
  // the timed iterations.
  std::map<std::tuple<int, int, int>, std::vector<double>> gaps, durations;
  std::map<std::pair<int, int>, double> compute;  // per (rank, iteration): its base compute
  for (const Op& op : p.ops) {
    if (op.iteration < 0 || op.slot < 0) continue;
    gaps[{op.rank, op.slot, op.call}].push_back(op.gap - op.injected);
    if (!communicates(op.kind)) durations[{op.rank, op.slot, op.call}].push_back(op.duration);
    compute[{op.rank, op.iteration}] += op.gap - op.injected;
  }
  std::map<std::tuple<int, int, int>, double> gap_median, duration_median;
  for (const auto& [key, v] : gaps) gap_median[key] = median(v);
  for (const auto& [key, v] : durations) duration_median[key] = median(v);
  // Noise: each (rank, iteration)'s compute against its rank's median, pooled: the machine's noise;
  // its central 90 % only (the tails are the machine's stalls, which a prediction cannot place: a
  // drawn one makes a wave of its own where the run had none).
  std::vector<double> residuals;
  std::map<int, std::vector<double>> per_rank;
  for (const auto& [key, c] : compute) per_rank[key.first].push_back(c);
  for (const auto& [rank, v] : per_rank) {
    const double m = median(v);
    for (const double c : v) residuals.push_back(c - m);
  }
  std::sort(residuals.begin(), residuals.end());
  if (residuals.size() >= 20) {
    const std::size_t cut = residuals.size() / 20;
    residuals = std::vector<double>(residuals.begin() + static_cast<std::ptrdiff_t>(cut),
                                    residuals.end() - static_cast<std::ptrdiff_t>(cut));
  }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, residuals.empty() ? 0 : residuals.size() - 1);
  std::map<std::pair<int, int>, std::int64_t> largest;  // per (rank, iteration): its largest compute, where the noise goes
  for (std::size_t i = 0; i < p.ops.size(); ++i) {
    const Op& op = p.ops[i];
    if (op.iteration < 0 || op.slot < 0) continue;
    const double g = gap_median[{op.rank, op.slot, op.call}];
    o.gap[i] = g + op.injected;
    if (const auto d = duration_median.find({op.rank, op.slot, op.call}); d != duration_median.end()) o.local[i] = d->second;
    auto& best = largest.try_emplace({op.rank, op.iteration}, static_cast<std::int64_t>(i)).first->second;
    if (g > gap_median[{op.rank, p.ops[static_cast<std::size_t>(best)].slot, p.ops[static_cast<std::size_t>(best)].call}])
      best = static_cast<std::int64_t>(i);
  }
  if (noise && !residuals.empty())
    for (const auto& [key, i] : largest)
      o.gap[static_cast<std::size_t>(i)] = std::max(0.0, o.gap[static_cast<std::size_t>(i)] + residuals[pick(rng)]);
  return o;
}

}  // namespace ripple::analysis
