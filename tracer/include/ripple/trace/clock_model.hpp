#pragma once
// Mapping each rank's clock onto rank 0's: offset from ping-pongs (Cristian's method, the sample
// with the shortest round trip), at MPI_Init and again at MPI_Finalize, and a linear drift between
// the two. Pure arithmetic, so it is tested on synthetic clocks (tests/unit/clock_model_test.cpp).
#include <vector>

namespace ripple::trace {

// One ping-pong seen from the rank: it sent at local `sent`, rank 0 stamped `remote` with its own
// clock, the answer arrived at local `received`.
struct PingPong {
  double sent, remote, received;
};

struct OffsetSample {
  double local = 0;   // local time of the estimate (middle of the chosen round trip)
  double offset = 0;  // rank 0's clock minus the local clock
  double error = 0;   // half the chosen round trip: the bound on the offset's error
};

// The estimate from the ping-pong with the shortest round trip.
OffsetSample estimate_offset(const std::vector<PingPong>& samples);

// local -> rank 0 time through two samples (offset and drift); with one sample, offset only.
class ClockModel {
public:
  ClockModel() = default;
  explicit ClockModel(const OffsetSample& start) : a_(start), b_(start), drift_(0) {}
  ClockModel(const OffsetSample& start, const OffsetSample& end);
  [[nodiscard]] double to_global(double local) const { return local + a_.offset + drift_ * (local - a_.local); }
  [[nodiscard]] double drift() const { return drift_; }
  [[nodiscard]] double offset() const { return a_.offset; }

private:
  OffsetSample a_, b_;
  double drift_ = 0;
};

}  // namespace ripple::trace
