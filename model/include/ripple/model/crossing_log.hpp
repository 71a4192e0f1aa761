#pragma once
// The iteration ends of one rank's oscillators (`[output] iterations`) until they are written to
// /iteration_end: element (i, k) is the first time θ_i reaches 2π(k+1).
//
// A window of columns [written, max_reached) holds every local row's values (NaN where a row has
// not reached the level yet). A column is written once every row is past it, for all the rank's
// rows at once: contiguous in the file, and written once. So that memory stays bounded whatever K
// becomes, the window keeps at most `max_columns` columns at a write: if the slowest rows hold it
// open longer, its oldest columns are written anyway (NaN for those rows), and what those rows find
// there later goes out as single cells, which HDF5 writes about a hundred times more slowly per
// value (1.6 µs against 13 ns in a column). MPI-free.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace ripple::model {

class CrossingLog {
public:
  struct Cell {
    std::size_t row = 0;  // local row
    std::int64_t column = 0;
  };

  // Level k is 2π(k + 1): the phase at which iteration k ends.
  static double level(std::int64_t k);

  // `initial_phase`: θ(0) of each local row; levels at or below it count as reached, at no time
  // (NaN). `max_columns` >= 1: the window's length after a write. `room`: columns to allocate at
  // once (the window grows by doubling past it, holding both while it copies).
  CrossingLog(std::span<const double> initial_phase, std::int64_t max_columns, std::int64_t room = 1);
  // A log continued from a checkpoint (possibly written by other ranks): per row, the levels it
  // reached, the column before which its old log had written (`written`), and its values at
  // columns [written, reached): value(row, column). The new log has written every column before
  // the largest of `written`: a row's values there go out as cells.
  CrossingLog(std::span<const std::int64_t> reached, std::span<const std::int64_t> written,
              const std::function<double(std::size_t, std::int64_t)>& value, std::int64_t max_columns, std::int64_t room = 1);

  [[nodiscard]] std::size_t rows() const { return reached_.size(); }
  // The lowest level that each row has not reached: what the scan compares phases with.
  [[nodiscard]] std::span<const double> next_levels() const { return next_level_; }
  [[nodiscard]] std::int64_t reached(std::size_t row) const { return reached_[row]; }
  // Over all rows: this rank's part of K.
  [[nodiscard]] std::int64_t max_reached() const { return max_reached_; }

  // `row` reached its next level at `time`.
  void record(std::size_t row, double time);

  // Columns before written() are in the file (or NaN there, by its fill value).
  [[nodiscard]] std::int64_t written() const { return written_; }
  // Where the next write ends: every column that all rows are past, and more if the window would
  // otherwise keep more than max_columns; `all` (the end of the run): every column.
  [[nodiscard]] std::int64_t writable(bool all) const;
  // The rows' values at column c, written() <= c < max_reached(): NaN where not reached.
  [[nodiscard]] std::span<const double> column(std::int64_t c) const;
  // Columns before `end` are written: their room is reused.
  void mark_written(std::int64_t end);

  // Values that rows found behind written(): handed over (appended) and forgotten.
  [[nodiscard]] bool has_cells() const { return !cells_.empty(); }
  void take_cells(std::vector<Cell>& cells, std::vector<double>& values);

private:
  // capacity_ is a power of two: no division per value.
  [[nodiscard]] std::size_t slot(std::int64_t column) const {
    return static_cast<std::size_t>(column & (capacity_ - 1)) * rows();
  }
  void grow(std::int64_t columns);

  std::int64_t max_columns_;
  std::vector<std::int64_t> reached_;  // per row: levels reached, i.e. columns [0, reached) are final
  std::vector<double> next_level_;     // per row: level(reached)
  std::int64_t max_reached_ = 0;
  std::int64_t written_ = 0;
  std::int64_t capacity_ = 0;   // columns the window has room for (a power of two), column c at slot c % capacity_
  std::vector<double> window_;  // capacity_ columns of rows() values
  std::vector<Cell> cells_;
  std::vector<double> cell_values_;
};

}  // namespace ripple::model
