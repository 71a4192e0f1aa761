// The iteration a memory sample gets from the markers before it, against the truth of a full list
// of markers: exact within the newest 64, and the newest forgotten one's before them.
#include "mark_history.hpp"

#include <gtest/gtest.h>

namespace ripple::trace::detail {
namespace {

TEST(MarkHistory, ASampleGetsTheIterationOfTheLastMarkerAtOrBeforeIt) {
  MarkHistory h;
  EXPECT_EQ(h.iteration_at(5.0), -1);  // before any marker
  h.add(1.0, 0);
  h.add(2.0, 1);
  h.add(3.0, 7);
  EXPECT_EQ(h.iteration_at(0.5), -1);
  EXPECT_EQ(h.iteration_at(1.0), 0);  // at the marker: its iteration
  EXPECT_EQ(h.iteration_at(1.999), 0);
  EXPECT_EQ(h.iteration_at(2.5), 1);
  EXPECT_EQ(h.iteration_at(1e9), 7);
}

TEST(MarkHistory, KeepsTheNewest64AndGivesOlderSamplesTheNewestForgotten) {
  MarkHistory h;
  const int n = 70;  // markers k at time k, iteration 100 + k
  for (int k = 0; k < n; ++k) h.add(k, 100 + k);
  const int first_kept = n - static_cast<int>(MarkHistory::kMarks);  // 6
  for (int k = first_kept; k < n; ++k) {
    EXPECT_EQ(h.iteration_at(k + 0.5), 100 + k) << k;
    EXPECT_EQ(h.iteration_at(k), 100 + k) << k;
  }
  // Before the oldest kept marker: the one forgotten last (exact for times after it).
  EXPECT_EQ(h.iteration_at(first_kept - 0.5), 100 + first_kept - 1);
  EXPECT_EQ(h.iteration_at(-3.0), 100 + first_kept - 1);
}

}  // namespace
}  // namespace ripple::trace::detail
