#include "ripple/analysis/program.hpp"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>
#include <unordered_map>

#include "ripple/common/error.hpp"
#include "ripple/common/index_list.hpp"
#include "ripple/common/pcontrol.hpp"
#include "ripple/trace/trace_reader.hpp"

namespace ripple::analysis {
namespace {

// A send or a receive waiting to be matched: its op, and the channel it is on.
struct Endpoint {
  std::int64_t op = 0;
  bool second = false;  // a Sendrecv's receive half
};
using Channel = std::tuple<int, int, int, int>;  // source, destination, tag, communicator

// What a request id of a rank stands for: the op that made it, and whether it receives.
struct Request {
  std::int64_t op = 0;
  bool recv = false;
  std::int64_t receive = -1;  // a receive request: its entry in the rank's receives (for the actual source)
};

struct PendingReceive {
  std::int64_t op = 0;
  bool second = false;
  int src = -1, tag = -1, comm = 0;
};

std::string eager_limits_of(const std::string& sources) {
  try {
    const auto j = nlohmann::json::parse(sources);
    if (j.contains("eager_limits")) return j["eager_limits"].dump();
  } catch (const nlohmann::json::exception&) {
  }
  return "";
}

// Nodes whose ranks outnumber the CPUs they are bound to (all bindings known).
std::string core_sharing(const std::vector<trace::Placement>& placement) {
  std::map<std::string, std::pair<int, std::set<int>>> nodes;  // host: ranks, their CPUs
  for (const trace::Placement& pl : placement) {
    const auto cpus = parse_index_list(pl.binding);
    if (!cpus || cpus->empty()) return "";  // a binding unknown: say nothing
    auto& [ranks, all] = nodes[pl.host];
    ++ranks;
    all.insert(cpus->begin(), cpus->end());
  }
  std::string out;
  for (const auto& [host, n] : nodes)
    if (n.first > static_cast<int>(n.second.size()))
      out += fmt::format("{}{} ranks share {} CPU(s) on {}", out.empty() ? "" : "; ", n.first, n.second.size(), host);
  return out;
}

}  // namespace

Program read_program(const std::string& path) {
  const trace::TraceReader reader(path, false);
  Program p;
  p.path = path;
  p.ranks = reader.ranks();
  p.call_names = reader.call_names();
  p.eager_limits = eager_limits_of(reader.sources());
  p.core_sharing = core_sharing(reader.placement());
  constexpr std::int64_t kPiece = 1 << 16;
  p.events.reserve(static_cast<std::size_t>(reader.event_count()));
  for (std::int64_t first = 0; first < reader.event_count(); first += kPiece) {
    const std::vector<trace::Event> piece = reader.read_events(first, kPiece);
    p.events.insert(p.events.end(), piece.begin(), piece.end());
  }
  if (p.events.empty()) throw InputError(fmt::format("{}: the trace holds no events", path));
  const std::vector<CallKind> kinds = classify_calls(p.call_names);
  const auto kind_of = [&](const trace::Event& e) {
    return e.call >= 0 && static_cast<std::size_t>(e.call) < kinds.size() ? kinds[static_cast<std::size_t>(e.call)]
                                                                          : CallKind::Other;
  };

  std::map<Channel, std::vector<Endpoint>> sends, receives;
  std::vector<std::int64_t> collectives(static_cast<std::size_t>(p.ranks), 0);
  p.rank_first.push_back(0);
  std::int64_t event = 0;
  for (int r = 0; r < p.ranks; ++r) {
    const std::int64_t end =
        reader.rank_offsets()[static_cast<std::size_t>(r)] + reader.rank_counts()[static_cast<std::size_t>(r)];
    std::unordered_map<std::int64_t, Request> requests;
    std::vector<PendingReceive> pending;  // in the order they were posted
    int iteration = -1, slot = -1;
    double previous_exit = NAN, injected = 0;
    for (; event < end; ++event) {
      const trace::Event& e = p.events[static_cast<std::size_t>(event)];
      if (std::isnan(e.t_enter) || std::isnan(e.t_exit)) continue;  // a time not known: nothing to replay
      const CallKind kind = kind_of(e);
      if (kind == CallKind::Completion) {
        if (p.ops.size() == static_cast<std::size_t>(p.rank_first.back())) continue;  // before any call of the rank
        Op& call = p.ops.back();
        if (call.kind == CallKind::Sendrecv && e.request < 0) {  // the receive half
          pending.push_back({static_cast<std::int64_t>(p.ops.size()) - 1, true, e.peer, e.tag, e.comm});
          continue;
        }
        const auto it = requests.find(e.request);
        if (it == requests.end()) continue;  // a request made before the trace knew it (or persistent): no dependency
        if (it->second.recv && it->second.receive >= 0) {  // the actual source and tag of the receive
          pending[static_cast<std::size_t>(it->second.receive)].src = e.peer;
          pending[static_cast<std::size_t>(it->second.receive)].tag = e.tag;
        }
        if (call.kind == CallKind::Wait) {
          if (call.waits < 0) call.waits = static_cast<std::int64_t>(p.wait_messages.size());
          p.wait_messages.push_back({it->second.op, it->second.recv});  // an op index for now: a message below
          ++call.wait_count;
        }
        requests.erase(it);
        continue;
      }
      if (kind == CallKind::Marker && e.tag == kPcontrolDelay) {  // injected work: the next op's gap holds it
        injected += std::bit_cast<double>(e.buffer);
        continue;
      }
      if (kind == CallKind::Marker && e.tag == kPcontrolIteration) {
        iteration = e.iteration;
        slot = 0;
      } else if ((kind == CallKind::Marker && e.tag == kPcontrolLoopEnd) || kind == CallKind::Finalize) {
        iteration = -1;
        slot = -1;
      } else if (slot >= 0) {
        ++slot;
      }
      Op op;
      op.kind = kind;
      op.call = e.call;
      op.rank = r;
      op.tag = e.tag;
      op.iteration = iteration;
      op.slot = slot;
      op.event = event;
      op.gap = std::isnan(previous_exit) ? 0.0 : e.t_enter - previous_exit;
      op.duration = e.t_exit - e.t_enter;
      op.injected = injected;
      injected = 0;
      previous_exit = e.t_exit;
      const auto index = static_cast<std::int64_t>(p.ops.size());
      if (is_send(kind) && e.peer >= 0) sends[{r, e.peer, e.tag, e.comm}].push_back({index, false});
      if (kind == CallKind::Isend && e.request >= 0) requests[e.request] = {index, false, -1};
      if (kind == CallKind::Irecv || kind == CallKind::Recv) {
        pending.push_back({index, false, e.peer, e.tag, e.comm});
        if (kind == CallKind::Irecv && e.request >= 0)
          requests[e.request] = {index, true, static_cast<std::int64_t>(pending.size()) - 1};
      }
      if (kind == CallKind::Collective && e.comm == 0) op.collective = collectives[static_cast<std::size_t>(r)]++;
      p.ops.push_back(op);
    }
    p.anchor.push_back(-1);
    for (std::int64_t i = p.rank_first.back(); i < static_cast<std::int64_t>(p.ops.size()); ++i) {
      const Op& op = p.ops[static_cast<std::size_t>(i)];
      if (op.kind == CallKind::Marker && op.tag == kPcontrolIteration && op.iteration >= 0) {
        p.anchor.back() = i;
        break;
      }
    }
    for (const PendingReceive& x : pending)
      if (x.src >= 0) receives[{x.src, r, x.tag, x.comm}].push_back({x.op, x.second});
    p.rank_first.push_back(static_cast<std::int64_t>(p.ops.size()));
  }
  for (int r = 1; r < p.ranks; ++r)
    if (collectives[static_cast<std::size_t>(r)] != collectives[0])
      throw InputError(
          fmt::format("{}: rank 0 made {} collective calls on MPI_COMM_WORLD and rank {} made {}: not a trace the "
                      "timeline model can replay",
                      path, collectives[0], r, collectives[static_cast<std::size_t>(r)]));
  for (const Op& op : p.ops)
    if (op.rank == 0 && op.collective >= 0) p.collective_calls.push_back(op.call);

  // Matching: the k-th send on a channel goes to its k-th receive.
  for (auto& [channel, from] : sends) {
    const auto it = receives.find(channel);
    const std::size_t matched = it == receives.end() ? 0 : std::min(from.size(), it->second.size());
    for (std::size_t k = 0; k < matched; ++k) {
      const Endpoint s = from[k], d = it->second[k];
      const trace::Event& sent = p.events[static_cast<std::size_t>(p.ops[static_cast<std::size_t>(s.op)].event)];
      const auto m = static_cast<std::int64_t>(p.messages.size());
      p.messages.push_back({std::get<0>(channel), std::get<1>(channel), sent.bytes, s.op, d.op, sent.same_node != 0});
      p.ops[static_cast<std::size_t>(s.op)].message = m;
      (d.second ? p.ops[static_cast<std::size_t>(d.op)].message2 : p.ops[static_cast<std::size_t>(d.op)].message) = m;
    }
    p.unmatched += static_cast<std::int64_t>(from.size() - matched);
    if (it != receives.end()) p.unmatched += static_cast<std::int64_t>(it->second.size() - matched);
  }
  for (auto& [channel, to] : receives)
    if (!sends.contains(channel)) p.unmatched += static_cast<std::int64_t>(to.size());
  for (WaitEntry& w : p.wait_messages) w.message = p.ops[static_cast<std::size_t>(w.message)].message;  // -1: unmatched
  return p;
}

}  // namespace ripple::analysis
