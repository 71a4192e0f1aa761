// The max-plus timeline model on programs written here, whose idle waves are known analytically:
// a delay D at rank r in iteration k makes rank r +- h wait D in iteration k + h - 1 on an eager
// chain, two ranks per iteration with distances 1 and 2 or with rendezvous sends in separate waits,
// fronts that annihilate half way round a ring, the larger of two meeting waves going on with the
// difference, and an all-reduction stopping every rank in iteration k.
#include "ripple/analysis/timeline_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "ripple/analysis/program.hpp"
#include "ripple/analysis/trace_table.hpp"
#include "ripple/analysis/waves.hpp"
#include "ripple/common/pcontrol.hpp"

namespace ripple::analysis {
namespace {

enum Call : std::int32_t { Pcontrol, Irecv, Isend, Send, Waitall, Allreduce, Completion, Init, Finalize };
const std::vector<std::string> kNames = {"MPI_Pcontrol",  "MPI_Irecv",  "MPI_Isend", "MPI_Send",    "MPI_Waitall",
                                         "MPI_Allreduce", "completion", "MPI_Init",  "MPI_Finalize"};

// Writes a program op by op, as read_program would make it from a trace: events (whose times the
// model ignores but for the ranks' start), ops, messages matched by order.
class Writer {
public:
  explicit Writer(int ranks) : ranks_(ranks), sends_(static_cast<std::size_t>(ranks * ranks)), recvs_(sends_.size()) {
    p_.ranks = ranks;
    p_.call_names = kNames;
    p_.rank_first.push_back(0);
  }
  // Starts rank r's ops (ranks in order).
  void rank(int r) {
    rank_ = r;
    iteration_ = -1;
    slot_ = -1;
    p_.anchor.push_back(-1);
    op(Init, 0, -1);
  }
  void marker(int iteration) {
    iteration_ = iteration;
    slot_ = 0;
    const auto i = op(Pcontrol, 0, -1, kPcontrolIteration);
    if (p_.anchor.back() < 0 && iteration >= 0) p_.anchor.back() = i;
  }
  void compute(double seconds) { gap_ += seconds; }
  // A receive from `from`, a send to `to` (blocking or not); returns the op.
  std::int64_t irecv(int from) {
    const auto i = op(Irecv, 0, from);
    recvs_[channel(from, rank_)].push_back(i);
    pending_.push_back({i, true});
    return i;
  }
  void send(int to, std::int64_t bytes, bool blocking) {
    const auto i = op(blocking ? Send : Isend, bytes, to);
    sends_[channel(rank_, to)].push_back(i);
    if (!blocking) pending_.push_back({i, false});
  }
  // A Waitall over every request posted since the last one.
  void waitall() {
    const auto i = op(Waitall, 0, -1);
    Op& w = p_.ops[static_cast<std::size_t>(i)];
    w.waits = static_cast<std::int64_t>(p_.wait_messages.size());
    for (const auto& [request, recv] : pending_) {
      p_.wait_messages.push_back({request, recv});  // an op for now, a message in finish()
      ++w.wait_count;
    }
    pending_.clear();
  }
  void allreduce() {
    const auto i = op(Allreduce, 8, -1);
    p_.ops[static_cast<std::size_t>(i)].collective = collectives_++;
  }
  void end_rank() {
    op(Finalize, 0, -1);
    p_.rank_first.push_back(static_cast<std::int64_t>(p_.ops.size()));
    if (rank_ == 0)
      for (const Op& o : p_.ops)
        if (o.collective >= 0) p_.collective_calls.push_back(o.call);
    collectives_ = 0;
  }
  Program finish() {
    for (std::size_t c = 0; c < sends_.size(); ++c)
      for (std::size_t k = 0; k < std::min(sends_[c].size(), recvs_[c].size()); ++k) {
        const auto m = static_cast<std::int64_t>(p_.messages.size());
        const Op& s = p_.ops[static_cast<std::size_t>(sends_[c][k])];
        p_.messages.push_back({s.rank, static_cast<int>(c) % ranks_, p_.events[static_cast<std::size_t>(s.event)].bytes,
                               sends_[c][k], recvs_[c][k], true});
        p_.ops[static_cast<std::size_t>(sends_[c][k])].message = m;
        p_.ops[static_cast<std::size_t>(recvs_[c][k])].message = m;
      }
    for (WaitEntry& w : p_.wait_messages) w.message = p_.ops[static_cast<std::size_t>(w.message)].message;
    return std::move(p_);
  }

private:
  std::size_t channel(int from, int to) const { return static_cast<std::size_t>(from * ranks_ + to); }
  std::int64_t op(std::int32_t call, std::int64_t bytes, int peer, int tag = -1) {
    trace::Event e;
    e.call = call;
    e.rank = rank_;
    e.peer = peer;
    e.tag = tag;
    e.bytes = bytes;
    e.iteration = iteration_;
    e.comm = 0;
    e.t_enter = e.t_exit = 0;
    p_.events.push_back(e);
    Op o;
    o.kind = classify_calls(kNames)[static_cast<std::size_t>(call)];
    o.call = call;
    o.rank = rank_;
    o.tag = tag;
    o.iteration = iteration_;
    o.slot = slot_ >= 0 ? slot_++ : -1;
    o.event = static_cast<std::int64_t>(p_.events.size()) - 1;
    o.gap = gap_;
    gap_ = 0;
    p_.ops.push_back(o);
    return static_cast<std::int64_t>(p_.ops.size()) - 1;
  }
  Program p_;
  int ranks_, rank_ = 0, iteration_ = -1, slot_ = -1;
  std::int64_t collectives_ = 0;
  double gap_ = 0;
  std::vector<std::vector<std::int64_t>> sends_, recvs_;
  std::vector<std::pair<std::int64_t, bool>> pending_;
};

struct Delay {
  int rank, iteration;
  double seconds;
};

// A bulk-synchronous program: per iteration a marker, 2 ms of compute (plus the delays), then
// `exchange` (the communication of one rank in one iteration).
Program program(int ranks, int iterations, const std::vector<Delay>& delays, const std::function<void(Writer&, int)>& exchange) {
  Writer w(ranks);
  for (int r = 0; r < ranks; ++r) {
    w.rank(r);
    for (int k = 0; k < iterations; ++k) {
      w.marker(k);
      w.compute(0.002);
      for (const Delay& d : delays)
        if (d.rank == r && d.iteration == k) w.compute(d.seconds);
      exchange(w, r);
    }
    w.end_rank();
  }
  return w.finish();
}

WavesResult waves_of(const Program& p, const TimelineParams& params, const std::vector<Delay>& delays,
                     IterationTable* out = nullptr) {
  std::vector<double> gap, local(p.ops.size(), 0.0);
  for (const Op& op : p.ops) gap.push_back(op.gap);
  TraceTableBuilder b("model", p.ranks, p.call_names);
  b.add(run_timeline(p, params, gap, local));
  IterationTable t = b.finish();
  for (const Delay& d : delays) t.injected[{d.rank, d.iteration}] = d.seconds;
  t.has_injected = true;
  WavesResult w = analyze_waves(t);
  if (out != nullptr) *out = std::move(t);
  return w;
}

TimelineParams eager() {
  TimelineParams t;
  t.call_cost.assign(kNames.size(), 0.0);
  t.collective_cost.assign(kNames.size(), 0.0);
  return t;
}

const Front& front(const Wave& w, const std::string& d) {
  for (const Front& f : w.fronts)
    if (f.direction == d) return f;
  throw std::runtime_error("no front " + d);
}

// Neighbours at the given distances on an open chain (or a ring): receive from each, send to each,
// one Waitall.
std::function<void(Writer&, int)> halo(int ranks, const std::vector<int>& distances, bool periodic) {
  return [=](Writer& w, int r) {
    const auto peer = [&](int d) {
      return periodic ? ((r + d) % ranks + ranks) % ranks : (r + d < 0 || r + d >= ranks ? -1 : r + d);
    };
    for (const int d : distances)
      if (peer(-d) >= 0) w.irecv(peer(-d));
    for (const int d : distances)
      if (peer(d) >= 0) w.send(peer(d), 16, false);
    w.waitall();
  };
}

TEST(TimelineModel, AnEagerChainPassesTheDelayOnOneRankPerIteration) {
  const std::vector<Delay> delays = {{5, 10, 0.01}};
  IterationTable t;
  const WavesResult w = waves_of(program(16, 40, delays, halo(16, {-1, 1}, false)), eager(), delays, &t);
  ASSERT_EQ(w.waves.size(), 1u);
  for (int h = 1; h < 11; ++h)
    for (const int r : {5 - h, 5 + h}) {
      if (r < 0 || r >= 16) continue;
      for (int k = 0; k < 40; ++k) EXPECT_NEAR(t.wait[t.at(r, k)], k == 10 + h - 1 ? 0.01 : 0.0, 1e-12) << r << " " << k;
    }
  EXPECT_NEAR(front(w.waves[0], "down").speed_iterations, 1.0, 1e-12);
  EXPECT_NEAR(front(w.waves[0], "up").speed_iterations, 1.0, 1e-12);
}

TEST(TimelineModel, DistancesOneAndTwoMakeTwoRanksPerIteration) {
  const std::vector<Delay> delays = {{5, 10, 0.01}};
  const WavesResult w = waves_of(program(16, 40, delays, halo(16, {-1, 1, -2, 2}, false)), eager(), delays);
  EXPECT_NEAR(front(w.waves[0], "down").speed_iterations, 2.0, 0.2);
  EXPECT_NEAR(front(w.waves[0], "up").speed_iterations, 2.0, 0.2);
}

TEST(TimelineModel, RendezvousInSeparateWaitsMakeTwoRanksPerIteration) {
  // Each direction in its own wait: receive from the left, send to the right (blocking), wait; then
  // the same the other way. A rendezvous send waits for its receiver to post: the delayed rank's
  // lateness reaches its right neighbour within the iteration and the one beyond in the next.
  const auto exchange = [](Writer& w, int r) {
    if (r > 0) w.irecv(r - 1);
    if (r < 15) w.send(r + 1, 1 << 20, true);
    w.waitall();
    if (r < 15) w.irecv(r + 1);
    if (r > 0) w.send(r - 1, 1 << 20, true);
    w.waitall();
  };
  TimelineParams params = eager();
  params.eager_same_node = 4096;
  const std::vector<Delay> delays = {{5, 10, 0.01}};
  const WavesResult w = waves_of(program(16, 40, delays, exchange), params, delays);
  EXPECT_NEAR(front(w.waves[0], "up").speed_iterations, 2.0, 0.2);
  EXPECT_NEAR(front(w.waves[0], "down").speed_iterations, 2.0, 0.2);
}

TEST(TimelineModel, APeriodicRingsFrontsAnnihilateHalfWayRound) {
  const std::vector<Delay> delays = {{5, 10, 0.01}};
  const WavesResult w = waves_of(program(16, 40, delays, halo(16, {-1, 1}, true)), eager(), delays);
  ASSERT_EQ(w.meetings.size(), 1u);
  EXPECT_EQ(w.meetings[0].iteration, 10 + 16 / 2 - 1);  // N / 2 iterations after the delay's
  EXPECT_EQ(w.waves[0].resync_iteration, 10 + 16 / 2);
}

TEST(TimelineModel, OfTwoMeetingWavesTheLargerGoesOnWithTheDifference) {
  const std::vector<Delay> delays = {{4, 10, 0.02}, {14, 10, 0.01}};
  const WavesResult w = waves_of(program(24, 40, delays, halo(24, {-1, 1}, false)), eager(), delays);
  ASSERT_EQ(w.meetings.size(), 1u);
  EXPECT_EQ(w.meetings[0].residual_wave, 0);
  EXPECT_NEAR(w.meetings[0].residual, 0.02 - 0.01, 1e-9);
}

TEST(TimelineModel, AnAllreducePerIterationStopsEveryRankInTheDelaysIteration) {
  const std::vector<Delay> delays = {{3, 10, 0.01}};
  IterationTable t;
  const WavesResult w = waves_of(program(8, 30, delays, [](Writer& wr, int) { wr.allreduce(); }), eager(), delays, &t);
  for (int r = 0; r < 8; ++r)
    for (int k = 0; k < 30; ++k) EXPECT_NEAR(t.wait[t.at(r, k)], r != 3 && k == 10 ? 0.01 : 0.0, 1e-12) << r << " " << k;
}

TEST(TimelineModel, LatencyAndBandwidthDelayTheArrivals) {
  // Two ranks, one message each way per iteration: every iteration takes compute + alpha + beta m.
  TimelineParams params = eager();
  params.alpha = 1e-4;
  params.beta = 1e-9;
  IterationTable t;
  waves_of(program(2, 10, {},
                   [](Writer& w, int r) {
                     w.irecv(1 - r);
                     w.send(1 - r, 1000, false);
                     w.waitall();
                   }),
           params, {}, &t);
  for (int k = 0; k < 9; ++k) EXPECT_NEAR(t.end[t.at(0, k + 1)] - t.end[t.at(0, k)], 0.002 + 1e-4 + 1e-6, 1e-12);
}

TEST(TimelineModel, AnAnchoredReplayEndsEachIterationWhereTheModelReachesIt) {
  // The trace starts iteration k at 3k ms, 1 ms later than 2 ms of compute and free messages
  // explain: a replay anchored at each start ends iteration k at 3k + 2 ms (its own prediction, one
  // iteration ahead), not at the trace's next start, and starts k + 1 where the trace does.
  Program p = program(2, 6, {}, [](Writer& w, int r) {
    w.irecv(1 - r);
    w.send(1 - r, 8, false);
    w.waitall();
  });
  for (const Op& op : p.ops)
    if (op.kind == CallKind::Marker && op.iteration >= 0)
      p.events[static_cast<std::size_t>(op.event)].t_enter = p.events[static_cast<std::size_t>(op.event)].t_exit =
          0.003 * op.iteration;
  std::vector<double> gap, local(p.ops.size(), 0.0);
  for (const Op& op : p.ops) gap.push_back(op.gap);
  TraceTableBuilder b("model", p.ranks, p.call_names);
  b.add(run_timeline(p, eager(), gap, local, true));
  const IterationTable t = b.finish();
  ASSERT_EQ(t.iterations, 6);
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k < 6; ++k) {
      EXPECT_NEAR(t.end[t.at(r, k)], 0.003 * k + 0.002, 1e-12) << r << " " << k;
      EXPECT_NEAR(t.start(r, k), 0.003 * k, 1e-12) << r << " " << k;
      EXPECT_NEAR(t.wait[t.at(r, k)], 0.0, 1e-12) << r << " " << k;
    }
}

}  // namespace
}  // namespace ripple::analysis
