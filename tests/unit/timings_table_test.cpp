// The iteration table of a proxy app's JSON summary: its cells, the app's graph, and refusals.
#include "ripple/analysis/timings_table.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

#include "ripple/common/error.hpp"
#include "scratch_dir.hpp"

namespace ripple::analysis {
namespace {

std::string write(const ripple::testing::ScratchDir& dir, const std::string& name, const std::string& text) {
  std::string path = (dir.path() / name).string();
  std::ofstream(path) << text;
  return path;
}

TEST(TimingsTable, CellsComeFromTheRanksTimings) {
  const ripple::testing::ScratchDir dir("timings-cells");
  const std::string path = write(dir, "ring.json", R"({"app": "ring", "ranks": 3, "distances": "-1,1", "periodic": true,
    "timings": [{"rank": 0, "compute": [1, 2], "comm": [0.5, 0.25], "end": [1.5, 3.75]},
                {"rank": 2, "compute": [1, 1], "comm": [0, 0], "end": [1, 2]},
                {"rank": 1, "compute": [3, 3], "comm": [1, null], "end": [4, 7]}]})");
  const IterationTable t = table_from_timings(path);
  EXPECT_EQ(t.source, TableSource::Timings);
  EXPECT_EQ(t.ranks, 3);
  EXPECT_EQ(t.iterations, 2);
  EXPECT_EQ(t.compute[t.at(0, 1)], 2);
  EXPECT_EQ(t.wait[t.at(0, 1)], 0.25);
  EXPECT_EQ(t.start(0, 1), 1.5);  // end - compute - wait: the previous iteration's end
  EXPECT_EQ(t.end[t.at(2, 1)], 2);
  EXPECT_TRUE(std::isnan(t.wait[t.at(1, 1)]));
  EXPECT_FALSE(t.has_messages());
  EXPECT_FALSE(t.has_injected);
  EXPECT_TRUE(t.graph.periodic());
  EXPECT_EQ(t.graph.neighbours(0), (std::vector<int>{1, 2}));
}

TEST(TimingsTable, Heat2dAndHpcgGraphsFollowTheirProcessGrids) {
  const ripple::testing::ScratchDir dir("timings-grids");
  std::string rows;
  for (int r = 0; r < 8; ++r)
    rows += fmt::format(R"({}{{"rank": {}, "compute": [1], "comm": [0], "end": [1]}})", r ? "," : "", r);
  const IterationTable heat =
      table_from_timings(write(dir, "heat.json", R"({"app": "heat2d", "grid": "4x2", "timings": [)" + rows + "]}"));
  EXPECT_EQ(heat.graph.neighbours(5), (std::vector<int>{1, 4, 6}));  // (1, 1) of a 4 x 2 grid
  EXPECT_FALSE(heat.graph.all_to_all());
  const IterationTable hpcg =
      table_from_timings(write(dir, "hpcg.json", R"({"app": "hpcg", "process_grid": "2x2x2", "timings": [)" + rows + "]}"));
  EXPECT_EQ(hpcg.graph.neighbours(0).size(), 7u);  // a corner of a 2 x 2 x 2 grid touches all others
  EXPECT_TRUE(hpcg.graph.all_to_all());
}

TEST(TimingsTable, RefusesWhatIsNotASummary) {
  const ripple::testing::ScratchDir dir("timings-bad");
  EXPECT_THROW(table_from_timings(write(dir, "a.json", "{\"app\": \"ring\"}")), InputError);
  EXPECT_THROW(table_from_timings(write(dir, "b.json", "{not json")), InputError);
  EXPECT_THROW(
      table_from_timings(write(dir, "c.json", R"({"timings": [{"rank": 0, "compute": [1, 2], "comm": [0], "end": [1, 2]}]})")),
      InputError);
  EXPECT_THROW(table_from_timings(write(
                   dir, "d.json",
                   R"({"app": "heat2d", "grid": "3x3", "timings": [{"rank": 0, "compute": [1], "comm": [0], "end": [1]}]})")),
               InputError);
}

}  // namespace
}  // namespace ripple::analysis
