#pragma once
// Phase history for delayed coupling: theta_j(t - tau). Stores phase and phase velocity of every
// oscillator a rank reads (local and ghost) at each accepted step and interpolates with cubic Hermite
// polynomials. Before the first entry the oscillators are taken to have run freely at omega.
#include <cmath>
#include <cstddef>
#include <deque>
#include <span>
#include <vector>

namespace ripple::model {

class DelayHistory {
public:
  // `omega` holds the natural frequency of each of the m stored oscillators (for the pre-history).
  explicit DelayHistory(std::span<const double> omega);

  [[nodiscard]] std::size_t width() const { return omega_.size(); }
  [[nodiscard]] std::size_t entries() const { return times_.size(); }
  // Entry k: its time, and its values then derivatives (2 width() numbers), for checkpoints.
  [[nodiscard]] double time(std::size_t k) const { return times_[k]; }
  [[nodiscard]] std::span<const double> entry(std::size_t k) const { return data_[k]; }
  void clear() { truncate_after(-HUGE_VAL); }

  // Appends the state at time t (t not before the last entry; equal times mark a discontinuity
  // such as a kick, and the later entry wins from t on).
  void push(double t, std::span<const double> values, std::span<const double> derivatives);
  // Drops every entry after time t (used when a step overshot a kick).
  void truncate_after(double t);
  // Drops entries that no lookup at or after time t can need.
  void discard_before(double t);

  // Lookups are clamped to [lo, hi], and at hi taken from the left: the driver sets the delayed image
  // of the segment being integrated, whose ends may be exact discontinuities (a kick at hi must not
  // show in a lookup that rounding put a hair past it).
  void set_window(double lo, double hi) {
    lo_ = lo;
    hi_ = hi;
  }

  [[nodiscard]] double value(std::size_t index, double s) const;
  void values(double s, double* out) const;

private:
  struct Bracket {
    std::size_t k;     // entry at or before s
    bool extrapolate;  // s before the first or after the last entry
  };
  // The entries around s; at an entry time s, from the left uses the first entry at s as the end.
  [[nodiscard]] Bracket locate(double s, bool from_left) const;
  [[nodiscard]] Bracket clamp(double& s) const;
  [[nodiscard]] double interpolate(const Bracket& b, std::size_t index, double s) const;

  std::vector<double> omega_;
  std::deque<double> times_;
  std::deque<std::vector<double>> data_;  // per entry: values then derivatives
  std::vector<std::vector<double>> spare_;
  double lo_ = -HUGE_VAL;
  double hi_ = HUGE_VAL;
};

}  // namespace ripple::model
