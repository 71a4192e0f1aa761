// The communication graph: hop distances, rank offsets, periodicity.
#include "ripple/analysis/comm_graph.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace ripple::analysis {
namespace {

CommGraph grid(int px, int py) {  // rank = x + px * y, 5-point neighbours
  CommGraph g(px * py);
  for (int r = 0; r < px * py; ++r) {
    if (r % px + 1 < px) g.add_edge(r, r + 1);
    if (r / px + 1 < py) g.add_edge(r, r + px);
  }
  g.finish();
  return g;
}

TEST(CommGraph, HopsOnAGridAreManhattanDistances) {
  const CommGraph g = grid(4, 4);
  const std::vector<int> hops = g.hops_from(5);  // (1, 1)
  for (int r = 0; r < 16; ++r) EXPECT_EQ(hops[static_cast<std::size_t>(r)], std::abs(r % 4 - 1) + std::abs(r / 4 - 1)) << r;
  EXPECT_FALSE(g.looks_like_ring());
  EXPECT_EQ(g.edges(), 24);
  EXPECT_EQ(g.offsets_text(), "rank offsets ±1, ±4");
}

TEST(CommGraph, ARingIsPeriodicAndOffsetsGoTheShorterWay) {
  CommGraph g(10);
  for (int r = 0; r < 10; ++r) g.add_edge(r, (r + 1) % 10);
  g.finish();
  EXPECT_TRUE(g.looks_like_ring());
  g.set_periodic(true);
  EXPECT_EQ(g.offset(1, 9), -2);
  EXPECT_EQ(g.offset(8, 1), 3);
  EXPECT_EQ(g.hops_from(0)[5], 5);
  EXPECT_EQ(g.hops_from(0)[7], 3);
}

TEST(CommGraph, AChainWithALongEdgeIsNoRing) {
  CommGraph g(16);  // distances +-1 and +-9, open: the ends have other partners than the middle
  for (int r = 0; r < 16; ++r) {
    if (r + 1 < 16) g.add_edge(r, r + 1);
    if (r + 9 < 16) g.add_edge(r, r + 9);
  }
  g.finish();
  EXPECT_FALSE(g.looks_like_ring());
  EXPECT_EQ(g.offset(0, 9), 9);
}

TEST(CommGraph, DuplicateAndSelfEdgesAreDropped) {
  CommGraph g(3);
  g.add_edge(0, 1);
  g.add_edge(1, 0);
  g.add_edge(2, 2);
  g.add_edge(0, 7);  // outside: ignored
  g.finish();
  EXPECT_EQ(g.edges(), 1);
  EXPECT_EQ(g.hops_from(0)[2], -1);
}

TEST(CommGraph, CollectivesPutEveryRankOneHopAway) {
  CommGraph g(6);
  g.add_edge(0, 1);
  g.set_all_to_all(true);
  g.finish();
  const std::vector<int> hops = g.hops_from(2);
  EXPECT_EQ(hops, (std::vector<int>{1, 1, 0, 1, 1, 1}));
}

}  // namespace
}  // namespace ripple::analysis
