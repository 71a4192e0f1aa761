#include "ripple/model/delay_history.hpp"

#include <algorithm>

#include "ripple/common/error.hpp"

namespace ripple::model {

DelayHistory::DelayHistory(std::span<const double> omega) : omega_(omega.begin(), omega.end()) {}

void DelayHistory::push(double t, std::span<const double> values, std::span<const double> derivatives) {
  const std::size_t m = width();
  RIPPLE_VERIFY(values.size() == m && derivatives.size() == m, "DelayHistory::push: width mismatch");
  RIPPLE_VERIFY(times_.empty() || t >= times_.back(), "DelayHistory::push: time went backwards");
  std::vector<double> entry;
  if (!spare_.empty()) {
    entry = std::move(spare_.back());
    spare_.pop_back();
  }
  entry.resize(2 * m);
  std::copy(values.begin(), values.end(), entry.begin());
  std::copy(derivatives.begin(), derivatives.end(), entry.begin() + static_cast<std::ptrdiff_t>(m));
  times_.push_back(t);
  data_.push_back(std::move(entry));
}

void DelayHistory::truncate_after(double t) {
  while (!times_.empty() && times_.back() > t) {
    times_.pop_back();
    spare_.push_back(std::move(data_.back()));
    data_.pop_back();
  }
}

void DelayHistory::discard_before(double t) {
  // Keep the last entry at or before t: it brackets lookups at t.
  while (times_.size() >= 2 && times_[1] <= t) {
    times_.pop_front();
    spare_.push_back(std::move(data_.front()));
    data_.pop_front();
  }
}

DelayHistory::Bracket DelayHistory::locate(double s, bool from_left) const {
  RIPPLE_VERIFY(!times_.empty(), "DelayHistory: lookup before the first entry was pushed");
  if (s < times_.front() || (from_left && s == times_.front())) return {0, true};
  const auto it =
      from_left ? std::lower_bound(times_.begin(), times_.end(), s) : std::upper_bound(times_.begin(), times_.end(), s);
  const auto k = static_cast<std::size_t>(it - times_.begin()) - 1;
  return {k, k + 1 == times_.size()};
}

DelayHistory::Bracket DelayHistory::clamp(double& s) const {
  if (s >= hi_) {
    s = hi_;
    return locate(s, true);
  }
  s = std::max(s, lo_);
  return locate(s, false);
}

double DelayHistory::interpolate(const Bracket& b, std::size_t index, double s) const {
  const std::size_t m = width();
  const std::vector<double>& e0 = data_[b.k];
  if (b.extrapolate) {
    // Before the start: free running at omega. After the last entry: its tangent.
    const double slope = (b.k == 0 && s < times_.front()) ? omega_[index] : e0[m + index];
    return e0[index] + slope * (s - times_[b.k]);
  }
  const std::vector<double>& e1 = data_[b.k + 1];
  const double h = times_[b.k + 1] - times_[b.k];
  const double u = (s - times_[b.k]) / h;
  const double um = 1.0 - u;
  const double h00 = (1.0 + 2.0 * u) * um * um;
  const double h10 = u * um * um;
  const double h01 = u * u * (3.0 - 2.0 * u);
  const double h11 = -u * u * um;
  return h00 * e0[index] + h10 * h * e0[m + index] + h01 * e1[index] + h11 * h * e1[m + index];
}

double DelayHistory::value(std::size_t index, double s) const {
  const Bracket b = clamp(s);
  return interpolate(b, index, s);
}

void DelayHistory::values(double s, double* out) const {
  const Bracket b = clamp(s);
  const std::size_t m = width();
  if (b.extrapolate) {
    for (std::size_t i = 0; i < m; ++i) out[i] = interpolate(b, i, s);
    return;
  }
  // The basis is the same for every column: computed once, by interpolate()'s operations, so that
  // each value has value()'s bits; the loop then streams the two entries and vectorises (it was
  // 38 % of a delayed chain's time, one call per column).
  const double* e0 = data_[b.k].data();
  const double* e1 = data_[b.k + 1].data();
  const double h = times_[b.k + 1] - times_[b.k];
  const double u = (s - times_[b.k]) / h;
  const double um = 1.0 - u;
  const double h00 = (1.0 + 2.0 * u) * um * um;
  const double h10h = u * um * um * h;
  const double h01 = u * u * (3.0 - 2.0 * u);
  const double h11h = -u * u * um * h;
  for (std::size_t i = 0; i < m; ++i) out[i] = h00 * e0[i] + h10h * e0[m + i] + h01 * e1[i] + h11h * e1[m + i];
}

}  // namespace ripple::model
