#pragma once
// Who waits for whom: the communication graph of a run, over which idle waves travel. Built from a
// trace's point-to-point messages and collectives, from a proxy app's layout, or from a
// simulation's topology.
#include <cstdint>
#include <string>
#include <vector>

namespace ripple::analysis {

class CommGraph {
public:
  CommGraph() = default;
  explicit CommGraph(int ranks) : neighbours_(static_cast<std::size_t>(ranks)) {}

  // An undirected edge (self-edges and ranks outside [0, ranks) are ignored). Call finish() after
  // the last one.
  void add_edge(int a, int b);
  // Sorts the neighbour lists. Call after the last edge.
  void finish();
  // A 1-D arrangement that wraps round (a ring): rank offsets are then taken the shorter way round.
  // The builder says so from what it knows (a ring app's flag, a ring topology, a trace's graph that
  // looks_like_ring).
  void set_periodic(bool on) { periodic_ = on; }
  // Every rank has the same partners at the same offsets modulo the ranks, and some edge wraps
  // round: a ring, not a chain or a grid.
  [[nodiscard]] bool looks_like_ring() const;
  // Some collective over all ranks ran inside the iterations: every rank is one hop from every other.
  void set_all_to_all(bool on) { all_to_all_ = on; }
  void set_description(std::string d) { description_ = std::move(d); }

  [[nodiscard]] int ranks() const { return static_cast<int>(neighbours_.size()); }
  [[nodiscard]] const std::vector<int>& neighbours(int rank) const { return neighbours_[static_cast<std::size_t>(rank)]; }
  [[nodiscard]] bool all_to_all() const { return all_to_all_; }
  [[nodiscard]] bool periodic() const { return periodic_; }
  [[nodiscard]] const std::string& description() const { return description_; }
  [[nodiscard]] std::int64_t edges() const;
  // "rank offsets ±1, ±4" (the distinct |offset| of the edges, at most eight named), or "none".
  [[nodiscard]] std::string offsets_text() const;

  // Hops from `source` to every rank (breadth-first; -1 where unreachable).
  [[nodiscard]] std::vector<int> hops_from(int source) const;
  // The signed offset of `rank` from `source` in rank order, the shorter way round a periodic
  // arrangement: negative below the source ("down"), positive above ("up").
  [[nodiscard]] int offset(int source, int rank) const;

private:
  std::vector<std::vector<int>> neighbours_;
  bool all_to_all_ = false;
  bool periodic_ = false;
  std::string description_;
};

}  // namespace ripple::analysis
