// The request table against a plain list of (handle, id) pairs: entries found by handle through
// collisions and deletions, several requests behind one handle kept apart in the order they were
// made, a full table refusing and counting.
#include "request_table.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace ripple::trace::detail {
namespace {

RequestInfo request(std::uintptr_t handle, std::int64_t id) {
  RequestInfo r;
  r.handle = handle;
  r.id = id;
  return r;
}

TEST(RequestTable, OneHandleForSeveralRequestsKeepsThemApartInOrder) {
  RequestTable t(64);
  const std::uintptr_t shared = 0x7f1604f07cc0;  // as Open MPI hands out for completed MPI_Ibsend
  for (std::int64_t id = 10; id < 13; ++id) {
    bool held = true;
    ASSERT_TRUE(t.insert(request(shared, id), &held));
    EXPECT_EQ(held, id > 10) << id;  // the handle already had entries
  }
  bool held = true;
  ASSERT_TRUE(t.insert(request(0x1000, 99), &held));
  EXPECT_FALSE(held);
  EXPECT_EQ(t.find(shared)->id, 10);
  EXPECT_EQ(t.find(shared, 1)->id, 11);
  EXPECT_EQ(t.find(shared, 2)->id, 12);
  EXPECT_EQ(t.find(shared, 3), nullptr);
  t.erase_if(shared, 11);  // the middle one completes
  EXPECT_EQ(t.find(shared)->id, 10);
  EXPECT_EQ(t.find(shared, 1)->id, 12);
  t.erase(shared);  // the oldest
  EXPECT_EQ(t.find(shared)->id, 12);
  t.erase_if(shared, 11);  // already gone: nothing happens
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.find(0x1000)->id, 99);
}

TEST(RequestTable, MatchesAListThroughCollisionsAndDeletions) {
  RequestTable t(256);
  std::vector<RequestInfo> truth;
  std::mt19937_64 rng(7);
  std::int64_t next = 0;
  for (int step = 0; step < 20000; ++step) {
    const bool add = truth.size() < 100 && (truth.empty() || rng() % 3 != 0);
    if (add) {
      // Few distinct handles, so that probe chains collide and handles repeat.
      const std::uintptr_t h = 8 * (1 + rng() % 40);
      ASSERT_TRUE(t.insert(request(h, next)));
      truth.push_back(request(h, next++));
    } else {
      const std::size_t k = rng() % truth.size();
      t.erase_if(truth[k].handle, truth[k].id);
      truth.erase(truth.begin() + static_cast<std::ptrdiff_t>(k));
    }
    ASSERT_EQ(t.size(), truth.size());
    if (step % 97 == 0)
      for (const auto& r : truth) {
        int nth = 0;  // its position among the live requests of its handle, oldest first
        for (const auto& o : truth)
          if (o.handle == r.handle && o.id < r.id) ++nth;
        const RequestInfo* found = t.find(r.handle, nth);
        ASSERT_NE(found, nullptr) << step;
        ASSERT_EQ(found->id, r.id) << step;
      }
  }
}

// One call's requests (MPI_Waitall's array): the nth use of a handle in a round is its nth oldest
// entry; a new round starts again from the oldest; an entry erased during a round is skipped.
TEST(RequestTable, ARoundGivesEachEntryOfAHandleOnceInOrder) {
  RequestTable t(1 << 12);
  const std::uintptr_t shared = 0x7f1604f07cc0, single = 0x2000;
  for (std::int64_t id = 0; id < 1000; ++id) ASSERT_TRUE(t.insert(request(shared, id)));
  ASSERT_TRUE(t.insert(request(single, 5000)));
  t.new_round();
  for (std::int64_t id = 0; id < 1000; ++id) {
    ASSERT_EQ(t.next_in_round(shared)->id, id);
    if (id == 500) {
      EXPECT_EQ(t.next_in_round(single)->id, 5000);
      EXPECT_EQ(t.next_in_round(single), nullptr);  // given once
    }
  }
  EXPECT_EQ(t.next_in_round(shared), nullptr);
  t.new_round();
  EXPECT_EQ(t.next_in_round(shared)->id, 0);
  t.erase_if(shared, 0);  // the one just given completes
  t.erase_if(shared, 2);
  EXPECT_EQ(t.next_in_round(shared)->id, 1);
  EXPECT_EQ(t.next_in_round(shared)->id, 3);
  EXPECT_EQ(t.next_in_round(0x3000), nullptr);    // unknown
  for (int k = 0; k < 997; ++k) t.erase(shared);  // the oldest each time: 998 were left
  EXPECT_EQ(t.size(), 2u);                        // id 999 and the single one
  EXPECT_EQ(t.find(shared)->id, 999);
}

TEST(RequestTable, AFullTableRefusesAndCounts) {
  RequestTable t(16);  // room for 11 (three quarters, less one)
  int taken = 0;
  for (std::uintptr_t h = 1; h <= 20; ++h) taken += t.insert(request(8 * h, static_cast<std::int64_t>(h))) ? 1 : 0;
  EXPECT_EQ(taken, 11);
  EXPECT_EQ(t.untracked(), 9);
  EXPECT_FALSE(t.insert(request(0, 1)));  // no handle: not a request
}

}  // namespace
}  // namespace ripple::trace::detail
