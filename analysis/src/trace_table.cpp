#include "ripple/analysis/trace_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <deque>
#include <limits>

#include "ripple/analysis/call_kinds.hpp"
#include "ripple/common/error.hpp"
#include "ripple/common/pcontrol.hpp"
#include "ripple/trace/trace_reader.hpp"

namespace ripple::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Iteration markers further apart than this are no iteration numbers (a time step, a stray value):
// refused before they make room for that many empty iterations.
constexpr std::int64_t kMaxJump = 1'000'000;

struct Cell {
  double start = kNaN;
  double end = kNaN;
  double wait = 0;
  std::int64_t msgs_sent = 0, bytes_sent = 0, msgs_recv = 0, bytes_recv = 0;
  bool world_collective = false;  // a collective over MPI_COMM_WORLD ran in it
};

// One rank's iterations as its events go by.
struct RankBuilder {
  std::deque<Cell> cells;  // cells[k - base]; a deque: growing it moves no cell
  int base = 0;
  int open = -1;           // the iteration being accumulated, -1: none
  int calls_seen = 0;      // iteration-call mode: calls of it so far
  double boundary = kNaN;  // iteration-call mode: a return not yet applied
  bool any = false;
  Cell* current = nullptr;  // the open iteration's cell

  Cell& cell(int k) {
    if (!any) {
      base = k;
      any = true;
    }
    for (; base > k; --base) cells.emplace_front();  // markers out of order: room in front
    const auto i = static_cast<std::size_t>(k - base);
    if (i >= cells.size()) cells.resize(i + 1);
    return cells[i];
  }
  void begin(int k, double t) {
    open = k;
    Cell& c = cell(k);
    if (std::isnan(c.start)) c.start = t;
    current = &c;
  }
  void close(double t) {
    if (open < 0) return;
    current->end = t;
    open = -1;
  }
};

}  // namespace

struct TraceTableBuilder::State {
  std::string path;
  int ranks = 0;
  std::vector<CallKind> kinds;
  std::string iteration_call;
  int ends_iteration = -1;  // the call id of the iteration call
  std::vector<RankBuilder> builders;
  CommGraph graph;
  std::map<std::pair<int, int>, double> injected;
  bool any_marker = false, any_delay_marker = false, warmup_only = true;
  std::int64_t untimed = 0;
};

TraceTableBuilder::TraceTableBuilder(const std::string& path, int ranks, const std::vector<std::string>& call_names,
                                     const std::string& iteration_call)
    : s_(std::make_unique<State>()) {
  s_->path = path;
  s_->ranks = ranks;
  s_->kinds = classify_calls(call_names);
  s_->iteration_call = iteration_call;
  if (!iteration_call.empty()) {
    const auto it = std::find(call_names.begin(), call_names.end(), iteration_call);
    if (it == call_names.end())
      throw InputError(fmt::format("{}: --iteration-call {}: no such MPI call in this trace's call list (e.g. MPI_Waitall)", path,
                                   iteration_call));
    s_->ends_iteration = static_cast<int>(it - call_names.begin());
  }
  s_->builders.resize(static_cast<std::size_t>(ranks));
  s_->graph = CommGraph(ranks);
}

TraceTableBuilder::~TraceTableBuilder() = default;

void TraceTableBuilder::add(std::span<const trace::Event> events) {
  for (const trace::Event& e : events) add(e);
}

void TraceTableBuilder::add(const trace::Event& e) {
  State& s = *s_;
  RankBuilder& b = s.builders[static_cast<std::size_t>(e.rank)];
  const CallKind kind = e.call >= 0 && static_cast<std::size_t>(e.call) < s.kinds.size()
                            ? s.kinds[static_cast<std::size_t>(e.call)]
                            : CallKind::Other;
  if (std::isnan(e.t_enter) || std::isnan(e.t_exit)) {
    ++s.untimed;
    return;
  }
  if (s.ends_iteration >= 0) {
    // A return of the iteration call ends one iteration and starts the next once its completion
    // records (which follow it) are counted in the iteration it ends.
    if (!std::isnan(b.boundary) && kind != CallKind::Completion) {
      b.close(b.boundary);
      b.begin(b.calls_seen++, b.boundary);
      b.boundary = kNaN;
    }
    if (kind == CallKind::Finalize) b.open = -1;  // the epilogue after the last such call is no iteration
  } else if (kind == CallKind::Marker) {
    if (e.tag == kPcontrolIteration) {
      s.any_marker = true;
      b.close(e.t_enter);
      if (e.iteration >= 0) {
        s.warmup_only = false;
        const std::int64_t next = b.base + static_cast<std::int64_t>(b.cells.size());
        if (b.any && std::abs(static_cast<std::int64_t>(e.iteration) - next) > kMaxJump)
          throw InputError(
              fmt::format("{}: rank {} jumps to iteration {} after {}: iteration markers must number iterations "
                          "(MPI_Pcontrol(7701, k), k = 0, 1, ...)",
                          s.path, e.rank, e.iteration, next - 1));
        b.begin(e.iteration, e.t_exit);  // the model's anchors: see timeline_model.hpp
      }
    } else if (e.tag == kPcontrolLoopEnd) {
      b.close(e.t_enter);
    } else if (e.tag == kPcontrolDelay) {
      s.any_delay_marker = true;
      if (e.count >= 0) s.injected[{e.rank, e.count}] += std::bit_cast<double>(e.buffer);
    }
    return;
  } else if (kind == CallKind::Finalize) {
    b.close(e.t_enter);
  }
  if (b.open < 0) {
    if (e.call == s.ends_iteration) b.boundary = e.t_exit;  // the first such call opens iteration 0
    return;
  }
  Cell& c = *b.current;
  if (kind != CallKind::Completion) c.wait += e.t_exit - e.t_enter;
  if (is_send(kind) && e.peer >= 0) {
    ++c.msgs_sent;
    c.bytes_sent += e.bytes;
    s.graph.add_edge(e.rank, e.peer);
  } else if ((kind == CallKind::Completion || kind == CallKind::Recv) && e.peer >= 0) {
    ++c.msgs_recv;  // a completed receive (a send's completion names no peer)
    c.bytes_recv += e.bytes;
    s.graph.add_edge(e.rank, e.peer);
  } else if ((kind == CallKind::Collective || kind == CallKind::Icollective) && e.comm == 0) {
    c.world_collective = true;
  }
  if (e.call == s.ends_iteration) b.boundary = e.t_exit;
}

IterationTable TraceTableBuilder::finish() {
  State& s = *s_;
  const std::string& path = s.path;
  for (auto& b : s.builders)
    if (!std::isnan(b.boundary)) b.close(b.boundary);  // a rank whose events end with the call
  if (s.ends_iteration >= 0) {
    bool seen = false;
    for (const auto& b : s.builders) seen = seen || b.calls_seen > 0;
    if (!seen) throw InputError(fmt::format("{}: --iteration-call {} never occurs in this trace", path, s.iteration_call));
  } else if (!s.any_marker) {
    throw InputError(
        fmt::format("{}: no iteration markers (MPI_Pcontrol 7701) in this trace: name the call that ends each "
                    "iteration, e.g. --iteration-call MPI_Waitall",
                    path));
  } else if (s.warmup_only) {
    throw InputError(fmt::format("{}: only warm-up iterations (negative markers) in this trace: nothing to analyse", path));
  }

  // Columns: the iterations any rank completed.
  int lo = std::numeric_limits<int>::max(), hi = std::numeric_limits<int>::min();
  for (const auto& b : s.builders)
    for (std::size_t i = 0; i < b.cells.size(); ++i)
      if (std::isfinite(b.cells[i].end)) {
        lo = std::min(lo, b.base + static_cast<int>(i));
        hi = std::max(hi, b.base + static_cast<int>(i));
      }
  if (lo > hi) throw InputError(fmt::format("{}: no rank completed an iteration", path));
  IterationTable t;
  t.source = TableSource::Trace;
  t.input = path;
  t.resize(s.ranks, lo, hi - lo + 1, true);
  int incomplete = 0, collective_iterations = 0;
  for (int r = 0; r < s.ranks; ++r) {
    const RankBuilder& b = s.builders[static_cast<std::size_t>(r)];
    int collectives = 0;
    for (int k = lo; k <= hi; ++k) {
      const int i = k - b.base;
      if (!b.any || i < 0 || i >= static_cast<int>(b.cells.size()) || !std::isfinite(b.cells[static_cast<std::size_t>(i)].end)) {
        ++incomplete;
        continue;
      }
      const Cell& c = b.cells[static_cast<std::size_t>(i)];
      const std::size_t at = t.at(r, k - lo);
      t.end[at] = c.end;
      t.wait[at] = c.wait;
      t.compute[at] = c.end - c.start - c.wait;
      t.msgs_sent[at] = c.msgs_sent;
      t.bytes_sent[at] = c.bytes_sent;
      t.msgs_recv[at] = c.msgs_recv;
      t.bytes_recv[at] = c.bytes_recv;
      collectives += c.world_collective ? 1 : 0;
    }
    collective_iterations = std::max(collective_iterations, collectives);
  }
  // Collectives over all ranks in most iterations (an all-reduction per iteration) put every rank one
  // hop from every other; one now and then (a set-up barrier) does not carry waves.
  const bool world_collectives = 2 * collective_iterations >= t.iterations;
  for (const auto& [key, seconds] : s.injected)
    if (key.second >= lo && key.second <= hi) t.injected[key] = seconds;
  t.has_injected = s.ends_iteration < 0 && s.any_delay_marker;  // a program that marks no injected work has no truth
  CommGraph& graph = s.graph;
  graph.set_all_to_all(world_collectives);
  graph.finish();
  graph.set_periodic(graph.looks_like_ring());
  graph.set_description(fmt::format("point-to-point messages at {}{}", graph.offsets_text(),
                                    world_collectives ? ", and collectives over all ranks" : ""));
  t.graph = std::move(graph);
  t.description = fmt::format("{} ranks, iterations {} .. {} delimited by {}", s.ranks, lo, hi,
                              s.ends_iteration >= 0 ? fmt::format("each return from {}", s.iteration_call)
                                                    : std::string("the iteration markers (MPI_Pcontrol 7701)"));
  if (incomplete > 0) t.notes.push_back(fmt::format("{} rank-iterations are missing (left empty)", incomplete));
  if (s.untimed > 0) t.notes.push_back(fmt::format("{} events without a known time left out", s.untimed));
  return t;
}

IterationTable table_from_trace(const std::string& path, const std::string& iteration_call) {
  const trace::TraceReader reader(path, false);
  TraceTableBuilder builder(path, reader.ranks(), reader.call_names(), iteration_call);
  constexpr std::int64_t kPiece = 1 << 16;
  for (std::int64_t first = 0; first < reader.event_count(); first += kPiece) builder.add(reader.read_events(first, kPiece));
  return builder.finish();
}

}  // namespace ripple::analysis
