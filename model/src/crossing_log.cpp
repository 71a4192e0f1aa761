#include "ripple/model/crossing_log.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "ripple/common/error.hpp"

namespace ripple::model {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

double CrossingLog::level(std::int64_t k) { return 2.0 * std::numbers::pi * static_cast<double>(k + 1); }

CrossingLog::CrossingLog(std::span<const double> initial_phase, std::int64_t max_columns, std::int64_t room)
    : max_columns_(max_columns) {
  RIPPLE_VERIFY(max_columns >= 1, "CrossingLog: keep at least one column");
  const std::size_t n = initial_phase.size();
  reached_.resize(n);
  next_level_.resize(n);
  std::int64_t lowest = std::numeric_limits<std::int64_t>::max();
  for (std::size_t l = 0; l < n; ++l) {
    const double theta = initial_phase[l];
    std::int64_t k = 0;  // the first level above theta: those at or below it passed before t = 0
    if (theta >= level(0)) {
      k = static_cast<std::int64_t>(std::floor(theta / (2.0 * std::numbers::pi)));
      while (k > 0 && level(k - 1) > theta) --k;
      while (level(k) <= theta) ++k;
    }
    reached_[l] = k;
    next_level_[l] = level(k);
    max_reached_ = std::max(max_reached_, k);
    lowest = std::min(lowest, k);
  }
  // Columns every row passed before the start are NaN already (the file's fill value).
  written_ = n > 0 ? lowest : 0;
  grow(std::max<std::int64_t>({max_reached_ - written_, room, 1}));
}

CrossingLog::CrossingLog(std::span<const std::int64_t> reached, std::span<const std::int64_t> written,
                         const std::function<double(std::size_t, std::int64_t)>& value, std::int64_t max_columns,
                         std::int64_t room)
    : max_columns_(max_columns), reached_(reached.begin(), reached.end()) {
  RIPPLE_VERIFY(max_columns >= 1 && written.size() == reached.size(), "CrossingLog: bad checkpoint");
  const std::size_t n = reached.size();
  next_level_.resize(n);
  for (std::size_t l = 0; l < n; ++l) {
    next_level_[l] = level(reached_[l]);
    max_reached_ = std::max(max_reached_, reached_[l]);
    written_ = std::max(written_, written[l]);
  }
  grow(std::max<std::int64_t>({max_reached_ - written_, room, 1}));
  for (std::size_t l = 0; l < n; ++l)
    for (std::int64_t c = written[l]; c < reached_[l]; ++c) {
      const double v = value(l, c);
      if (c < written_) {
        cells_.push_back({l, c});
        cell_values_.push_back(v);
      } else {
        window_[slot(c) + l] = v;
      }
    }
}

void CrossingLog::grow(std::int64_t columns) {
  if (columns <= capacity_) return;
  std::int64_t capacity = std::max<std::int64_t>(capacity_, 1);
  while (capacity < columns) capacity *= 2;
  std::vector<double> window(static_cast<std::size_t>(capacity) * rows(), kNaN);
  for (std::int64_t c = written_; c < written_ + capacity_; ++c) {
    const auto from = window_.begin() + static_cast<std::ptrdiff_t>(slot(c));
    std::copy(from, from + static_cast<std::ptrdiff_t>(rows()),
              window.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(c & (capacity - 1)) * rows()));
  }
  window_ = std::move(window);
  capacity_ = capacity;
}

void CrossingLog::record(std::size_t row, double time) {
  const std::int64_t column = reached_[row];
  if (column < written_) {  // the window went on without this row: the value goes alone
    cells_.push_back({row, column});
    cell_values_.push_back(time);
  } else {
    if (column - written_ >= capacity_) grow(column + 1 - written_);
    window_[slot(column) + row] = time;
  }
  reached_[row] = column + 1;
  next_level_[row] = level(column + 1);
  max_reached_ = std::max(max_reached_, column + 1);
}

std::int64_t CrossingLog::writable(bool all) const {
  if (all) return max_reached_;
  std::int64_t slowest = max_reached_;
  for (const std::int64_t k : reached_) slowest = std::min(slowest, k);
  return std::max({written_, slowest, max_reached_ - max_columns_});
}

std::span<const double> CrossingLog::column(std::int64_t c) const {
  RIPPLE_VERIFY(c >= written_ && c < written_ + capacity_, "CrossingLog::column: not in the window");
  return {window_.data() + slot(c), rows()};
}

void CrossingLog::mark_written(std::int64_t end) {
  for (; written_ < end; ++written_) {
    const auto from = window_.begin() + static_cast<std::ptrdiff_t>(slot(written_));
    std::fill(from, from + static_cast<std::ptrdiff_t>(rows()), kNaN);
  }
}

void CrossingLog::take_cells(std::vector<Cell>& cells, std::vector<double>& values) {
  cells.insert(cells.end(), cells_.begin(), cells_.end());
  values.insert(values.end(), cell_values_.begin(), cell_values_.end());
  cells_.clear();
  cell_values_.clear();
}

}  // namespace ripple::model
