// Sets of CPUs or ranks in list syntax, as hwloc's hwloc_bitmap_list_asprintf writes them.
#include "ripple/common/index_list.hpp"

#include <gtest/gtest.h>

namespace ripple {
namespace {

TEST(IndexList, RunsBecomeRangesAndSinglesStayAlone) {
  EXPECT_EQ(index_list({0, 1, 2, 3, 8}), "0-3,8");
  EXPECT_EQ(index_list({1}), "1");
  EXPECT_EQ(index_list({1, 2}), "1-2");
  EXPECT_EQ(index_list({0, 2, 4, 5, 6, 9, 10}), "0,2,4-6,9-10");
  EXPECT_EQ(index_list({}), "");
}

TEST(IndexList, ParsesWhatItWritesAndRefusesTheRest) {
  for (const std::vector<int>& v : std::vector<std::vector<int>>{{0, 1, 2, 3, 8}, {1}, {0, 2, 4, 5, 6, 9, 10}, {}})
    EXPECT_EQ(parse_index_list(index_list(v)), v);
  for (const char* bad : {"x", "1-", "3-1", "1-2-3", "1,,2", "0-70000"}) EXPECT_EQ(parse_index_list(bad), std::nullopt) << bad;
}

}  // namespace
}  // namespace ripple
