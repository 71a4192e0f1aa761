#pragma once
// How the right-hand-side kernel sweeps a LocalGraph in cache-sized blocks of local rows.
//
// The reference kernel (RhsKernel::evaluate_ref) evaluates V for every edge into an edge-long
// buffer, then adds the terms to their rows in two passes over all edges: the a side (+V) in edge
// order, then, symmetric, the b side (-V) in edge order. That streams the buffer and the sums
// through memory several times. The plan gives each block of rows the edges it needs:
//   windows: edge ranges (or lists) whose V is computed into a small block buffer, once per edge
//            even where both of an edge's rows lie in the block;
//   tasks:   in the reference's order, the a-side terms of every run, then the b-side terms.
// A row therefore meets exactly the same terms in exactly the same order as in the reference, and V
// of an edge is the same number whichever block computes it: the blocked sums are bitwise the
// reference's, and so remain independent of the number of ranks.
#include <cstdint>
#include <vector>

#include "ripple/model/local_graph.hpp"

namespace ripple::model {

struct BlockPlan {
  // An affine window or task covers edges [begin, end); a list one the edges list[begin, end).
  struct Window {
    std::uint32_t begin, end;
    std::uint32_t buf;  // V of its first edge in the block buffer
    bool list;
  };
  struct Task {
    std::uint32_t begin, end;
    std::uint32_t buf;
    bool b_side;  // the row is the edge's b column and the term is -V
    bool list;
  };
  struct Block {
    std::uint32_t row_begin, row_end;
    std::uint32_t window_begin, window_end;
    std::uint32_t task_begin, task_end;
    std::uint32_t buf_size;
  };
  std::vector<Block> blocks;
  std::vector<Window> windows;
  std::vector<Task> tasks;
  std::vector<std::uint32_t> list;  // edge ids of list windows and tasks
  std::uint32_t max_buf = 0;
  std::uint32_t max_rows = 0;
};

// Blocks of at least `min_rows` local rows, larger where an affine run couples rows further apart,
// so that both rows of most edges fall into one block.
BlockPlan make_block_plan(const LocalGraph& g, std::uint32_t min_rows = 1024);

}  // namespace ripple::model
