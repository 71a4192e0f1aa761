#include "ripple/model/block_plan.hpp"

#include <algorithm>
#include <cstdint>
#include <map>

namespace ripple::model {
namespace {

struct Range {
  std::uint32_t begin = 0, end = 0;
  [[nodiscard]] bool empty() const { return begin >= end; }
};

// Edges k of the affine run [k0, k1) whose column c0 + (k - k0) lies in [r0, r1).
Range clip(std::uint32_t k0, std::uint32_t k1, std::uint32_t c0, std::uint32_t r0, std::uint32_t r1) {
  const std::int64_t lo = std::max<std::int64_t>(k0, std::int64_t{k0} + r0 - c0);
  const std::int64_t hi = std::min<std::int64_t>(k1, std::int64_t{k0} + r1 - c0);
  return lo < hi ? Range{static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(hi)} : Range{};
}

// Per block, while the plan is built: windows and the two task lists, each in run order.
struct Pending {
  std::vector<BlockPlan::Window> windows;
  std::vector<BlockPlan::Task> a_tasks, b_tasks;
  std::uint32_t buf = 0;
  std::uint32_t add_window(std::uint32_t begin, std::uint32_t end, bool list) {
    windows.push_back({begin, end, buf, list});
    buf += end - begin;
    return windows.back().buf;
  }
};

}  // namespace

BlockPlan make_block_plan(const LocalGraph& g, std::uint32_t min_rows) {
  const auto n = static_cast<std::uint32_t>(g.n_local());
  std::uint32_t rows = std::max<std::uint32_t>(min_rows, 1);
  for (const auto& run : g.runs) {
    if (!run.affine) continue;
    // Stretched for the long runs of a stencil (not for short ones such as a periodic wrap), up to
    // 16384 rows so that a block's sums and V stay within L2; further couplings get V twice.
    const std::int64_t d = std::int64_t{g.edge_b[run.begin]} - g.edge_a[run.begin];
    if (d > 0 && d <= 8192 && run.end - run.begin >= d) rows = std::max(rows, static_cast<std::uint32_t>(2 * d));
  }
  const std::uint32_t nblocks = n == 0 ? 0 : (n + rows - 1) / rows;
  std::vector<Pending> pending(nblocks);
  const auto block_of = [&](std::uint32_t c) { return c / rows; };
  const auto row_begin = [&](std::uint32_t b) { return b * rows; };
  const auto row_end = [&](std::uint32_t b) { return std::min(n, (b + 1) * rows); };

  std::vector<std::uint32_t> list;
  for (const auto& run : g.runs) {
    if (run.affine) {
      const std::uint32_t a0 = g.edge_a[run.begin], b0 = g.edge_b[run.begin], len = run.end - run.begin;
      // The blocks that the run's a columns and b columns reach (local rows only).
      std::vector<std::uint32_t> touched;
      const std::uint32_t first[2] = {a0, b0};
      for (int side = 0; side < (g.symmetric ? 2 : 1); ++side) {
        if (first[side] >= n) continue;  // ghost rows: their sums are not needed
        const auto last = static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{first[side]} + len, n) - 1);
        for (std::uint32_t b = block_of(first[side]); b <= block_of(last); ++b) touched.push_back(b);
      }
      std::sort(touched.begin(), touched.end());
      touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
      for (const std::uint32_t b : touched) {
        Pending& p = pending[b];
        const Range ra = clip(run.begin, run.end, a0, row_begin(b), row_end(b));
        const Range rb = g.symmetric ? clip(run.begin, run.end, b0, row_begin(b), row_end(b)) : Range{};
        if (!ra.empty() && !rb.empty() && ra.begin <= rb.end && rb.begin <= ra.end) {
          const Range u{std::min(ra.begin, rb.begin), std::max(ra.end, rb.end)};  // one V per edge
          const std::uint32_t buf = p.add_window(u.begin, u.end, false);
          p.a_tasks.push_back({ra.begin, ra.end, buf + (ra.begin - u.begin), false, false});
          p.b_tasks.push_back({rb.begin, rb.end, buf + (rb.begin - u.begin), true, false});
          continue;
        }
        if (!ra.empty()) p.a_tasks.push_back({ra.begin, ra.end, p.add_window(ra.begin, ra.end, false), false, false});
        if (!rb.empty()) p.b_tasks.push_back({rb.begin, rb.end, p.add_window(rb.begin, rb.end, false), true, false});
      }
      continue;
    }
    // Irregular edges: explicit lists per block and side.
    std::map<std::uint32_t, std::vector<std::uint32_t>> by_block[2];
    for (std::uint32_t k = run.begin; k < run.end; ++k) {
      if (g.edge_a[k] < n) by_block[0][block_of(g.edge_a[k])].push_back(k);
      if (g.symmetric && g.edge_b[k] < n) by_block[1][block_of(g.edge_b[k])].push_back(k);
    }
    for (int side = 0; side < 2; ++side) {
      for (const auto& [b, edges] : by_block[side]) {
        const auto begin = static_cast<std::uint32_t>(list.size());
        list.insert(list.end(), edges.begin(), edges.end());
        const auto end = static_cast<std::uint32_t>(list.size());
        Pending& p = pending[b];
        const std::uint32_t buf = p.add_window(begin, end, true);
        (side == 0 ? p.a_tasks : p.b_tasks).push_back({begin, end, buf, side == 1, true});
      }
    }
  }

  BlockPlan plan;
  plan.list = std::move(list);
  plan.max_rows = std::min(rows, n);
  for (std::uint32_t b = 0; b < nblocks; ++b) {
    Pending& p = pending[b];
    BlockPlan::Block blk{};
    blk.row_begin = row_begin(b);
    blk.row_end = row_end(b);
    blk.window_begin = static_cast<std::uint32_t>(plan.windows.size());
    plan.windows.insert(plan.windows.end(), p.windows.begin(), p.windows.end());
    blk.window_end = static_cast<std::uint32_t>(plan.windows.size());
    blk.task_begin = static_cast<std::uint32_t>(plan.tasks.size());
    plan.tasks.insert(plan.tasks.end(), p.a_tasks.begin(), p.a_tasks.end());
    plan.tasks.insert(plan.tasks.end(), p.b_tasks.begin(), p.b_tasks.end());
    blk.task_end = static_cast<std::uint32_t>(plan.tasks.size());
    blk.buf_size = p.buf;
    plan.max_buf = std::max(plan.max_buf, p.buf);
    plan.blocks.push_back(blk);
  }
  return plan;
}

}  // namespace ripple::model
