#include "ripple/analysis/trace_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <deque>
#include <limits>
#include <set>

#include "ripple/common/error.hpp"
#include "ripple/common/pcontrol.hpp"
#include "ripple/trace/trace_reader.hpp"

namespace ripple::analysis {
namespace {

enum class Kind : unsigned char { Other, Marker, Send, Receive, Completion, Collective, Finalize };

// MPI_Iallreduce -> Allreduce: the blocking form's name of a non-blocking call ("" for others).
std::string nonblocking_base(const std::string& n) {
  if (n.size() < 7 || n.compare(0, 5, "MPI_I") != 0) return "";
  std::string base = n.substr(5);
  base[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(base[0])));
  return base;
}

// Iteration markers further apart than this are no iteration numbers (a time step, a stray value):
// refused before they make room for that many empty iterations.
constexpr std::int64_t kMaxJump = 1'000'000;

// What each call of the trace's own call list means to the table.
std::vector<Kind> classify(const std::vector<std::string>& names) {
  static const std::set<std::string> sends = {"MPI_Send",   "MPI_Isend", "MPI_Ssend",  "MPI_Issend",   "MPI_Rsend",
                                              "MPI_Irsend", "MPI_Bsend", "MPI_Ibsend", "MPI_Sendrecv", "MPI_Sendrecv_replace"};
  static const std::set<std::string> collectives = {
      "Barrier",  "Bcast",     "Reduce",     "Allreduce",      "Gather",
      "Gatherv",  "Allgather", "Allgatherv", "Scatter",        "Scatterv",
      "Alltoall", "Alltoallv", "Alltoallw",  "Reduce_scatter", "Reduce_scatter_block",
      "Scan",     "Exscan"};
  std::vector<Kind> kinds(names.size(), Kind::Other);
  for (std::size_t c = 0; c < names.size(); ++c) {
    const std::string& n = names[c];
    if (n == "MPI_Pcontrol")
      kinds[c] = Kind::Marker;
    else if (sends.contains(n))
      kinds[c] = Kind::Send;
    else if (n == "MPI_Recv" || n == "MPI_Mrecv")
      kinds[c] = Kind::Receive;
    else if (n == "completion")
      kinds[c] = Kind::Completion;
    else if (n == "MPI_Finalize")
      kinds[c] = Kind::Finalize;
    else if (n.starts_with("MPI_") && (collectives.contains(n.substr(4)) || collectives.contains(nonblocking_base(n))))
      kinds[c] = Kind::Collective;
  }
  return kinds;
}

struct Cell {
  double start = std::numeric_limits<double>::quiet_NaN();
  double end = std::numeric_limits<double>::quiet_NaN();
  double wait = 0;
  std::int64_t msgs_sent = 0, bytes_sent = 0, msgs_recv = 0, bytes_recv = 0;
  bool world_collective = false;  // a collective over MPI_COMM_WORLD ran in it
};

// One rank's iterations as its events go by.
struct RankBuilder {
  std::deque<Cell> cells;  // cells[k - base]; a deque: growing it moves no cell
  int base = 0;
  int open = -1;                                               // the iteration being accumulated, -1: none
  int calls_seen = 0;                                          // iteration-call mode: calls of it so far
  double boundary = std::numeric_limits<double>::quiet_NaN();  // iteration-call mode: a return not yet applied
  bool any = false;

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
  Cell* current = nullptr;  // the open iteration's cell
};

void add(std::int64_t& total, std::int64_t v) { total += v; }

}  // namespace

IterationTable table_from_trace(const std::string& path, const std::string& iteration_call) {
  const trace::TraceReader reader(path, false);
  const int ranks = reader.ranks();
  const std::vector<Kind> kinds = classify(reader.call_names());
  int ends_iteration = -1;  // the call id of --iteration-call
  if (!iteration_call.empty()) {
    const auto& names = reader.call_names();
    const auto it = std::find(names.begin(), names.end(), iteration_call);
    if (it == names.end())
      throw InputError(fmt::format("{}: --iteration-call {}: no such MPI call in this trace's call list (e.g. MPI_Waitall)", path,
                                   iteration_call));
    ends_iteration = static_cast<int>(it - names.begin());
  }

  std::vector<RankBuilder> builders(static_cast<std::size_t>(ranks));
  CommGraph graph(ranks);
  std::map<std::pair<int, int>, double> injected;
  bool any_marker = false, any_delay_marker = false, warmup_only = true;
  std::int64_t untimed = 0;
  constexpr std::int64_t kPiece = 1 << 16;
  for (std::int64_t first = 0; first < reader.event_count(); first += kPiece) {
    for (const trace::Event& e : reader.read_events(first, kPiece)) {
      RankBuilder& b = builders[static_cast<std::size_t>(e.rank)];
      const Kind kind =
          e.call >= 0 && static_cast<std::size_t>(e.call) < kinds.size() ? kinds[static_cast<std::size_t>(e.call)] : Kind::Other;
      if (std::isnan(e.t_enter) || std::isnan(e.t_exit)) {
        ++untimed;
        continue;
      }
      if (ends_iteration >= 0) {
        // A return of the iteration call ends one iteration and starts the next once its completion
        // records (which follow it) are counted in the iteration it ends.
        if (!std::isnan(b.boundary) && kind != Kind::Completion) {
          b.close(b.boundary);
          b.begin(b.calls_seen++, b.boundary);
          b.boundary = std::numeric_limits<double>::quiet_NaN();
        }
        if (kind == Kind::Finalize) b.open = -1;  // the epilogue after the last such call is no iteration
      } else if (kind == Kind::Marker) {
        if (e.tag == kPcontrolIteration) {
          any_marker = true;
          b.close(e.t_enter);
          if (e.iteration >= 0) {
            warmup_only = false;
            if (b.any && std::abs(static_cast<std::int64_t>(e.iteration) - (b.base + static_cast<std::int64_t>(b.cells.size()))) >
                             kMaxJump)
              throw InputError(
                  fmt::format("{}: rank {} jumps to iteration {} after {}: iteration markers must number iterations "
                              "(MPI_Pcontrol(7701, k), k = 0, 1, ...)",
                              path, e.rank, e.iteration, b.base + static_cast<int>(b.cells.size()) - 1));
            b.begin(e.iteration, e.t_enter);
          }
        } else if (e.tag == kPcontrolLoopEnd) {
          b.close(e.t_enter);
        } else if (e.tag == kPcontrolDelay) {
          any_delay_marker = true;
          if (e.count >= 0) injected[{e.rank, e.count}] += std::bit_cast<double>(e.buffer);
        }
        continue;
      } else if (kind == Kind::Finalize) {
        b.close(e.t_enter);
      }
      if (b.open < 0) {
        if (e.call == ends_iteration) b.boundary = e.t_exit;  // the first such call opens iteration 0
        continue;
      }
      Cell& c = *b.current;
      if (kind != Kind::Completion && kind != Kind::Marker) c.wait += e.t_exit - e.t_enter;
      if (kind == Kind::Send && e.peer >= 0) {
        ++c.msgs_sent;
        add(c.bytes_sent, e.bytes);
        graph.add_edge(e.rank, e.peer);
      } else if ((kind == Kind::Completion || kind == Kind::Receive) && e.peer >= 0) {
        ++c.msgs_recv;  // a completed receive (a send's completion names no peer)
        add(c.bytes_recv, e.bytes);
        graph.add_edge(e.rank, e.peer);
      } else if (kind == Kind::Collective && e.comm == 0) {
        c.world_collective = true;
      }
      if (e.call == ends_iteration) b.boundary = e.t_exit;
    }
  }
  for (auto& b : builders)
    if (!std::isnan(b.boundary)) b.close(b.boundary);  // a rank whose events end with the call
  if (ends_iteration >= 0) {
    bool seen = false;
    for (const auto& b : builders) seen = seen || b.calls_seen > 0;
    if (!seen) throw InputError(fmt::format("{}: --iteration-call {} never occurs in this trace", path, iteration_call));
  } else if (!any_marker) {
    throw InputError(
        fmt::format("{}: no iteration markers (MPI_Pcontrol 7701) in this trace: name the call that ends each "
                    "iteration, e.g. --iteration-call MPI_Waitall",
                    path));
  } else if (warmup_only) {
    throw InputError(fmt::format("{}: only warm-up iterations (negative markers) in this trace: nothing to analyse", path));
  }

  // Columns: the iterations any rank completed.
  int lo = std::numeric_limits<int>::max(), hi = std::numeric_limits<int>::min();
  for (const auto& b : builders)
    for (std::size_t i = 0; i < b.cells.size(); ++i)
      if (std::isfinite(b.cells[i].end)) {
        lo = std::min(lo, b.base + static_cast<int>(i));
        hi = std::max(hi, b.base + static_cast<int>(i));
      }
  if (lo > hi) throw InputError(fmt::format("{}: no rank completed an iteration", path));
  IterationTable t;
  t.source = TableSource::Trace;
  t.input = path;
  t.resize(ranks, lo, hi - lo + 1, true);
  int incomplete = 0;
  for (int r = 0; r < ranks; ++r) {
    const RankBuilder& b = builders[static_cast<std::size_t>(r)];
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
    }
  }
  // Collectives over all ranks in most iterations (an all-reduction per iteration) put every rank one
  // hop from every other; one now and then (a set-up barrier) does not carry waves.
  int collective_iterations = 0;
  for (const auto& b : builders) {
    int n = 0;
    for (std::size_t i = 0; i < b.cells.size(); ++i) {
      const int k = b.base + static_cast<int>(i);
      n += k >= lo && k <= hi && b.cells[i].world_collective ? 1 : 0;
    }
    collective_iterations = std::max(collective_iterations, n);
  }
  const bool world_collectives = 2 * collective_iterations >= t.iterations;
  for (const auto& [key, seconds] : injected)
    if (key.second >= lo && key.second <= hi) t.injected[key] = seconds;
  t.has_injected = ends_iteration < 0 && any_delay_marker;  // a program that marks no injected work has no truth
  graph.set_all_to_all(world_collectives);
  graph.finish();
  graph.set_periodic(graph.looks_like_ring());
  graph.set_description(fmt::format("point-to-point messages at {}{}", graph.offsets_text(),
                                    world_collectives ? ", and collectives over all ranks" : ""));
  t.graph = std::move(graph);
  t.description = fmt::format("{} ranks, iterations {} .. {} delimited by {}", ranks, lo, hi,
                              ends_iteration >= 0 ? fmt::format("each return from {}", iteration_call)
                                                  : std::string("the iteration markers (MPI_Pcontrol 7701)"));
  if (incomplete > 0) t.notes.push_back(fmt::format("{} rank-iterations are missing (left empty)", incomplete));
  if (untimed > 0) t.notes.push_back(fmt::format("{} events without a known time left out", untimed));
  return t;
}

}  // namespace ripple::analysis
