#include "ripple/analysis/timeline_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ripple/common/error.hpp"

namespace ripple::analysis {
namespace {

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
bool known(double t) { return !std::isnan(t); }

class Engine {
public:
  Engine(const Program& p, const TimelineParams& params, const std::vector<double>& gap, const std::vector<double>& local,
         bool anchored)
      : p_(p),
        params_(params),
        gap_(gap),
        local_(local),
        anchored_(anchored),
        exit_(p.ops.size(), kUnknown),
        reached_(p.ops.size(), kUnknown) {
    const std::size_t m = p.messages.size();
    send_post_.assign(m, kUnknown);
    recv_post_.assign(m, kUnknown);
    arrival_.assign(m, kUnknown);
    send_done_.assign(m, kUnknown);
    const std::size_t c = p.collective_calls.size();
    coll_entered_.assign(c, 0);
    coll_latest_.assign(c, -HUGE_VAL);
    registered_.assign(p.ops.size(), 0);
  }

  void run() {
    std::vector<std::int64_t> pc(p_.rank_first.begin(), p_.rank_first.end() - 1);
    std::vector<double> t(static_cast<std::size_t>(p_.ranks), 0.0);
    for (int r = 0; r < p_.ranks; ++r) {  // each rank starts where its first call began in the trace
      const std::int64_t first = p_.rank_first[static_cast<std::size_t>(r)];
      if (first < p_.rank_first[static_cast<std::size_t>(r) + 1])
        t[static_cast<std::size_t>(r)] =
            p_.events[static_cast<std::size_t>(p_.ops[static_cast<std::size_t>(first)].event)].t_enter;
    }
    for (bool progress = true; progress;) {
      progress = false;
      for (int r = 0; r < p_.ranks; ++r) {
        const std::int64_t end = p_.rank_first[static_cast<std::size_t>(r) + 1];
        std::int64_t& i = pc[static_cast<std::size_t>(r)];
        double& now = t[static_cast<std::size_t>(r)];
        while (i < end && step(i, now)) {
          ++i;
          progress = true;
        }
      }
    }
    for (int r = 0; r < p_.ranks; ++r)
      if (pc[static_cast<std::size_t>(r)] < p_.rank_first[static_cast<std::size_t>(r) + 1]) {
        const Op& op = p_.ops[static_cast<std::size_t>(pc[static_cast<std::size_t>(r)])];
        throw Error(
            fmt::format("{}: the timeline model cannot go on: rank {} waits in {} (trace event {}) for what no rank "
                        "provides",
                        p_.path, r, p_.call_names[static_cast<std::size_t>(op.call)], op.event));
      }
  }

  [[nodiscard]] std::vector<trace::Event> events() const {
    std::vector<trace::Event> out = p_.events;
    std::int64_t last_call = -1;
    std::vector<std::int64_t> op_of_event(p_.events.size(), -1);
    for (std::size_t i = 0; i < p_.ops.size(); ++i)
      op_of_event[static_cast<std::size_t>(p_.ops[i].event)] = static_cast<std::int64_t>(i);
    for (std::size_t e = 0; e < out.size(); ++e) {
      const std::int64_t op = op_of_event[e];
      if (op >= 0) {
        out[e].t_enter = reached_[static_cast<std::size_t>(op)];  // where an anchor moved the call, the model's own time
        out[e].t_exit = exit_[static_cast<std::size_t>(op)];
        last_call = op;
      } else if (last_call >= 0 && p_.ops[static_cast<std::size_t>(last_call)].rank == out[e].rank) {
        // completion records and delay markers: at the call they follow
        out[e].t_enter = out[e].t_exit = exit_[static_cast<std::size_t>(last_call)];
      }
    }
    return out;
  }

private:
  // The message's arrival and its send's completion, once what they depend on is known.
  void settle(std::int64_t m) {
    if (m < 0 || known(arrival_[static_cast<std::size_t>(m)]) || !known(send_post_[static_cast<std::size_t>(m)])) return;
    const Message& msg = p_.messages[static_cast<std::size_t>(m)];
    const double transfer = params_.alpha + params_.beta * static_cast<double>(msg.bytes);
    const double sent = send_post_[static_cast<std::size_t>(m)];
    if (!params_.rendezvous(msg)) {
      arrival_[static_cast<std::size_t>(m)] = sent + transfer;
      send_done_[static_cast<std::size_t>(m)] = sent;  // eager: the data left with the call
    } else if (known(recv_post_[static_cast<std::size_t>(m)])) {
      arrival_[static_cast<std::size_t>(m)] = std::max(sent, recv_post_[static_cast<std::size_t>(m)]) + transfer;
      send_done_[static_cast<std::size_t>(m)] = arrival_[static_cast<std::size_t>(m)];
    }
  }
  // When a receive of message m is complete (unknown: kUnknown); an unmatched one at once.
  [[nodiscard]] double received(std::int64_t m, double now) const {
    if (m < 0) return now;
    return known(arrival_[static_cast<std::size_t>(m)])
               ? std::max(arrival_[static_cast<std::size_t>(m)], recv_post_[static_cast<std::size_t>(m)])
               : kUnknown;
  }
  [[nodiscard]] double sent(std::int64_t m, double now) const { return m < 0 ? now : send_done_[static_cast<std::size_t>(m)]; }

  // Runs op i from `now` if what it waits for is known: sets its times and `now`, returns true.
  bool step(std::int64_t i, double& now) {
    const Op& op = p_.ops[static_cast<std::size_t>(i)];
    const bool anchor = i == p_.anchor[static_cast<std::size_t>(op.rank)] ||
                        (anchored_ && op.kind == CallKind::Marker && op.slot == 0 && op.iteration >= 0);
    const double reached = now + gap_[static_cast<std::size_t>(i)];
    const double enter = anchor ? p_.events[static_cast<std::size_t>(op.event)].t_enter  // where the trace has it
                                : reached;
    const double cost = params_.call_cost[static_cast<std::size_t>(op.call)];
    double exit = 0;  // every kind sets it
    switch (op.kind) {
      case CallKind::Send:
      case CallKind::Isend:
      case CallKind::Sendrecv: {
        post_send(op.message, enter);
        if (op.kind == CallKind::Sendrecv) post_receive(op.message2, enter);
        exit = enter + cost;
        if (op.kind == CallKind::Send || op.kind == CallKind::Sendrecv) {
          const double done = sent(op.message, enter);
          if (!known(done)) return false;
          exit = std::max(exit, done);
        }
        if (op.kind == CallKind::Sendrecv) {
          const double got = received(op.message2, enter);
          if (!known(got)) return false;
          exit = std::max(exit, got);
        }
        break;
      }
      case CallKind::Irecv:
      case CallKind::Recv: {
        post_receive(op.message, enter);
        exit = enter + cost;
        if (op.kind == CallKind::Recv) {
          const double got = received(op.message, enter);
          if (!known(got)) return false;
          exit = std::max(exit, got);
        }
        break;
      }
      case CallKind::Wait:
        exit = enter + cost;
        for (std::int32_t k = 0; k < op.wait_count; ++k) {
          const WaitEntry& w = p_.wait_messages[static_cast<std::size_t>(op.waits + k)];
          const double done = w.recv ? received(w.message, enter) : sent(w.message, enter);
          if (!known(done)) return false;
          exit = std::max(exit, done);
        }
        break;
      case CallKind::Collective:
        if (op.collective >= 0) {
          const auto k = static_cast<std::size_t>(op.collective);
          if (registered_[static_cast<std::size_t>(i)] == 0) {
            registered_[static_cast<std::size_t>(i)] = 1;
            ++coll_entered_[k];
            coll_latest_[k] = std::max(coll_latest_[k], enter);
          }
          if (coll_entered_[k] < p_.ranks) return false;
          exit = coll_latest_[k] + params_.collective_cost[static_cast<std::size_t>(op.call)];
          break;
        }
        [[fallthrough]];
      default:
        exit = enter + local_[static_cast<std::size_t>(i)];
    }
    exit_[static_cast<std::size_t>(i)] = exit;
    // The rank's first op has no model time before it: it is the trace's.
    reached_[static_cast<std::size_t>(i)] = i == p_.anchor[static_cast<std::size_t>(op.rank)] ? enter : reached;
    now = exit;
    return true;
  }

  void post_send(std::int64_t m, double at) {
    if (m < 0 || known(send_post_[static_cast<std::size_t>(m)])) return;
    send_post_[static_cast<std::size_t>(m)] = at;
    settle(m);
  }
  void post_receive(std::int64_t m, double at) {
    if (m < 0 || known(recv_post_[static_cast<std::size_t>(m)])) return;
    recv_post_[static_cast<std::size_t>(m)] = at;
    settle(m);
  }

  const Program& p_;
  const TimelineParams& params_;
  const std::vector<double>& gap_;
  const std::vector<double>& local_;
  bool anchored_;
  std::vector<double> exit_;
  std::vector<double> reached_;  // where the model reached each op before any anchor
  std::vector<double> send_post_, recv_post_, arrival_, send_done_;
  std::vector<int> coll_entered_;
  std::vector<double> coll_latest_;
  std::vector<char> registered_;
};

}  // namespace

std::vector<trace::Event> run_timeline(const Program& p, const TimelineParams& params, const std::vector<double>& gap,
                                       const std::vector<double>& local, bool anchored) {
  Engine engine(p, params, gap, local, anchored);
  engine.run();
  return engine.events();
}

}  // namespace ripple::analysis
