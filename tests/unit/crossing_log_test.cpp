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

// A checkpoint mid-run, its rows continued by two logs (as on another number of ranks): the table
// ends as the uninterrupted log's, every value in its place.
TEST(CrossingLog, ContinuesFromACheckpointOnOtherRows) {
  const std::size_t n = 12;
  // Row l reaches a level at step s when (s + l) % (1 + l % 3) == 0: the rows drift apart.
  const auto levels_at = [](std::size_t l, int s) { return (s + static_cast<int>(l)) % (1 + static_cast<int>(l % 3)) == 0; };
  const auto time_of = [](std::size_t l, int s) { return static_cast<double>(s) + 1e-3 * static_cast<double>(l); };
  CrossingLog whole(std::vector<double>(n, 0.0), 3);
  Table want{std::vector<std::vector<double>>(n)};
  CrossingLog first(std::vector<double>(n, 0.0), 3);
  Table got{std::vector<std::vector<double>>(n)};
  for (int s = 0; s < 40; ++s) {
    for (std::size_t l = 0; l < n; ++l)
      if (levels_at(l, s)) {
        whole.record(l, time_of(l, s));
        first.record(l, time_of(l, s));
      }
    if (s % 5 == 4) {
      want.flush(whole, false);
      got.flush(first, false);
    }
  }
  // The checkpoint: per row its levels, the log's written column, its unwritten values.
  std::vector<std::int64_t> reached(n), written(n, first.written());
  for (std::size_t l = 0; l < n; ++l) reached[l] = first.reached(l);
  std::vector<std::vector<double>> values(n);
  for (std::size_t l = 0; l < n; ++l)
    for (std::int64_t c = first.written(); c < reached[l]; ++c) values[l].push_back(first.column(c)[l]);
  // Rows 0..4 and 5..11 go on apart; the second also pretends it had written one column more.
  std::vector<CrossingLog> parts;
  std::vector<std::size_t> offset{0, 5};
  for (std::size_t p = 0; p < 2; ++p) {
    const std::size_t begin = offset[p], end = p == 0 ? 5 : n;
    std::vector<std::int64_t> r(reached.begin() + begin, reached.begin() + end),
        w(written.begin() + begin, written.begin() + end);
    if (p == 1 && r[0] > w[0]) {  // its row 5 was written one column further (its old log's)
      got.set(5, w[0], first.column(w[0])[5]);
      ++w[0];
    }
    const auto value = [&](std::size_t row, std::int64_t c) {
      return values[begin + row][static_cast<std::size_t>(c - first.written())];
    };
    parts.emplace_back(r, w, value, 3);
  }
  std::vector<Table> tables(2);
  for (std::size_t p = 0; p < 2; ++p) tables[p].rows.resize(p == 0 ? 5 : n - 5);
  for (int s = 40; s < 80; ++s) {
    for (std::size_t l = 0; l < n; ++l)
      if (levels_at(l, s)) {
        whole.record(l, time_of(l, s));
        parts[l < 5 ? 0 : 1].record(l < 5 ? l : l - 5, time_of(l, s));
      }
    if (s % 5 == 4) {
      want.flush(whole, false);
      for (std::size_t p = 0; p < 2; ++p) tables[p].flush(parts[p], false);
    }
  }
  want.flush(whole, true);
  for (std::size_t p = 0; p < 2; ++p) tables[p].flush(parts[p], true);
  for (std::size_t l = 0; l < n; ++l) {
    auto row = got.rows[l];  // before the checkpoint
    const auto& after = tables[l < 5 ? 0 : 1].rows[l < 5 ? l : l - 5];
    row.resize(std::max(row.size(), after.size()), kNaN);
    for (std::size_t c = 0; c < after.size(); ++c)
      if (!std::isnan(after[c])) row[c] = after[c];
    auto expected = want.rows[l];
    expected.resize(row.size(), kNaN);
    row.resize(expected.size(), kNaN);
    for (std::size_t c = 0; c < row.size(); ++c) EXPECT_TRUE(same_bits(row[c], expected[c])) << "row " << l << " column " << c;
  }
}

}  // namespace
}  // namespace ripple::model
