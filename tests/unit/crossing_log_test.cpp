// The bounded bookkeeping behind /iteration_end (crossing_log.hpp): whatever the rows do, the
// flushes, applied in order as the file applies them, rebuild exactly the table of first times.
#include "ripple/model/crossing_log.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>
#include <vector>

namespace ripple::model {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The file: rows of growing length, NaN where never written; counts the writes of each cell.
struct Table {
  std::vector<std::vector<double>> rows;
  std::size_t writes = 0;
  void set(std::size_t row, std::int64_t column, double v) {
    auto& r = rows[row];
    if (static_cast<std::int64_t>(r.size()) <= column) r.resize(static_cast<std::size_t>(column) + 1, kNaN);
    r[static_cast<std::size_t>(column)] = v;
    ++writes;
  }
  // One write: the columns the log says are ready, for every row; then its single cells.
  void flush(CrossingLog& log, bool all) {
    const std::int64_t end = log.writable(all);
    for (std::int64_t c = log.written(); c < end; ++c) {
      const std::span<const double> v = log.column(c);
      for (std::size_t l = 0; l < v.size(); ++l) set(l, c, v[l]);
    }
    log.mark_written(end);
    std::vector<CrossingLog::Cell> alone;
    std::vector<double> values;
    log.take_cells(alone, values);
    for (std::size_t j = 0; j < alone.size(); ++j) set(alone[j].row, alone[j].column, values[j]);
    cells += alone.size();
  }
  std::size_t cells = 0;  // written one by one
};

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(CrossingLog, LevelsAtOrBelowTheInitialPhaseCountAsReached) {
  const double two_pi = 2 * std::numbers::pi;
  const std::vector<double> theta0{-3.0, 0.0, two_pi, std::nextafter(two_pi, 0.0), 2 * two_pi + 0.1, 100.0};
  const CrossingLog log(theta0, 2);
  EXPECT_EQ(log.reached(0), 0);
  EXPECT_EQ(log.reached(1), 0);
  EXPECT_EQ(log.reached(2), 1);  // at the level: already reached
  EXPECT_EQ(log.reached(3), 0);
  EXPECT_EQ(log.reached(4), 2);
  EXPECT_EQ(log.reached(5), 15);  // 100 / 2π = 15.9
  EXPECT_EQ(log.max_reached(), 15);
  for (std::size_t l = 0; l < theta0.size(); ++l) {
    EXPECT_GT(log.next_levels()[l], theta0[l]);
    EXPECT_EQ(log.next_levels()[l], CrossingLog::level(log.reached(l)));
  }
}

TEST(CrossingLog, WritesRebuildTheTableWhateverTheRowsDo) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> phase(-1.0, 20.0);
  const std::size_t n = 37;
  const std::int64_t max_columns = 6;
  std::vector<double> theta0(n);
  for (double& v : theta0) v = phase(rng);
  theta0[5] = 2 * std::numbers::pi;
  CrossingLog log(theta0, max_columns);

  std::vector<std::vector<double>> expected(n);
  for (std::size_t l = 0; l < n; ++l) expected[l].assign(static_cast<std::size_t>(log.reached(l)), kNaN);
  Table file{std::vector<std::vector<double>>(n)};
  double t = 0;
  for (int flush = 0; flush < 60; ++flush) {
    for (std::size_t l = 0; l < n; ++l) {
      // Mostly one level per write; rows 3 and 20 stall for long stretches (the window goes on
      // without them), then race ahead; row 11 sometimes finds many levels at once.
      int levels = static_cast<int>(rng() % 3);
      if ((l == 3 || l == 20) && flush % 20 < 15) levels = 0;
      if ((l == 3 || l == 20) && flush % 20 >= 15) levels = 7;
      if (l == 11 && flush % 7 == 0) levels = 9;
      for (int j = 0; j < levels; ++j) {
        t += 0.001;
        log.record(l, t);
        expected[l].push_back(t);
      }
    }
    file.flush(log, false);
    EXPECT_LE(log.max_reached() - log.written(), max_columns) << "flush " << flush;
  }
  file.flush(log, true);
  std::int64_t k = 0;
  for (std::size_t l = 0; l < n; ++l) k = std::max<std::int64_t>(k, static_cast<std::int64_t>(expected[l].size()));
  EXPECT_EQ(log.max_reached(), k);
  for (std::size_t l = 0; l < n; ++l) {
    auto row = file.rows[l];
    row.resize(static_cast<std::size_t>(k), kNaN);
    auto want = expected[l];
    want.resize(static_cast<std::size_t>(k), kNaN);
    for (std::size_t c = 0; c < want.size(); ++c) EXPECT_TRUE(same_bits(row[c], want[c])) << "row " << l << " column " << c;
  }
  EXPECT_GT(file.cells, 0u);  // the stalled rows took the single-cell way
}

TEST(CrossingLog, RowsThatKeepTogetherAreWrittenOnceAndNeverAlone) {
  const std::size_t n = 500;
  CrossingLog log(std::vector<double>(n, 0.0), 4);
  Table file{std::vector<std::vector<double>>(n)};
  double t = 0;
  for (int flush = 0; flush < 20; ++flush) {
    // One level per write, give or take one: the rows drift apart by a column and back.
    for (std::size_t l = 0; l < n; ++l) {
      const int levels = flush == 0 ? static_cast<int>(l % 2) : (flush == 19 ? 2 - static_cast<int>(l % 2) : 1);
      for (int j = 0; j < levels; ++j) log.record(l, t += 1e-6);
    }
    file.flush(log, false);
  }
  file.flush(log, true);
  EXPECT_EQ(file.cells, 0u);
  EXPECT_EQ(file.writes, n * 20);  // each cell once
  for (const auto& row : file.rows)
    for (const double v : row) EXPECT_FALSE(std::isnan(v));
}

}  // namespace
}  // namespace ripple::model
