#include "ripple/model/topology.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "ripple/common/error.hpp"

namespace ripple::model {
namespace {

std::vector<std::int64_t> nbs(const Topology& t, std::int64_t i) {
  std::vector<std::int64_t> out;
  t.neighbours(i, out);
  return out;
}

TEST(Topology, OpenChainDropsOutsideNeighbours) {
  TopologyConfig c;
  c.kind = TopologyKind::Chain;
  c.distances = {-1, 1, -2};
  const Topology t = Topology::from_config(c, 10);
  EXPECT_EQ(nbs(t, 0), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(nbs(t, 1), (std::vector<std::int64_t>{0, 2}));
  EXPECT_EQ(nbs(t, 5), (std::vector<std::int64_t>{3, 4, 6}));
  EXPECT_EQ(nbs(t, 9), (std::vector<std::int64_t>{7, 8}));
  EXPECT_DOUBLE_EQ(t.kappa(KappaMode::Sum, 0), 4.0);
  EXPECT_DOUBLE_EQ(t.kappa(KappaMode::Max, 0), 2.0);
}

TEST(Topology, RingWrapsAndDeduplicates) {
  TopologyConfig c;
  c.kind = TopologyKind::Ring;
  const Topology t = Topology::from_config(c, 10);
  EXPECT_EQ(nbs(t, 0), (std::vector<std::int64_t>{1, 9}));
  const Topology two = Topology::from_config(c, 2);
  EXPECT_EQ(nbs(two, 0), (std::vector<std::int64_t>{1}));  // T is 0/1: +1 and -1 are the same partner
}

TEST(Topology, GridsHaveStencilNeighbours) {
  TopologyConfig c;
  c.kind = TopologyKind::Grid2D;
  c.dims = {4, 3};
  const Topology open = Topology::from_config(c, 12);
  EXPECT_EQ(nbs(open, 0), (std::vector<std::int64_t>{1, 4}));
  EXPECT_EQ(nbs(open, 5), (std::vector<std::int64_t>{1, 4, 6, 9}));
  c.periodic = true;
  const Topology torus = Topology::from_config(c, 12);
  EXPECT_EQ(nbs(torus, 0), (std::vector<std::int64_t>{1, 3, 4, 8}));
  TopologyConfig c3;
  c3.kind = TopologyKind::Grid3D;
  c3.dims = {2, 2, 2};
  EXPECT_EQ(nbs(Topology::from_config(c3, 8), 0), (std::vector<std::int64_t>{1, 2, 4}));
}

TEST(Topology, EdgeFileIsReadAndCheckedWithLineNumbers) {
  const std::string path = ::testing::TempDir() + "edges.txt";
  std::ofstream(path) << "# i j\n0 1\n1 0\n2 0  # comment\n\n0 1\n";
  TopologyConfig c;
  c.kind = TopologyKind::File;
  c.file = path;
  const Topology t = Topology::from_config(c, 3);
  EXPECT_EQ(nbs(t, 0), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(nbs(t, 2), (std::vector<std::int64_t>{0}));
  std::ofstream(path) << "0 1\n1 3\n";
  try {
    (void)Topology::from_config(c, 3);
    FAIL() << "out-of-range index accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":2: index out of range"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ripple::model
