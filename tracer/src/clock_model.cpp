#include "ripple/trace/clock_model.hpp"

#include <stdexcept>

namespace ripple::trace {

OffsetSample estimate_offset(const std::vector<PingPong>& samples) {
  if (samples.empty()) throw std::invalid_argument("estimate_offset: no ping-pong samples");
  const PingPong* best = &samples.front();
  for (const PingPong& s : samples)
    if (s.received - s.sent < best->received - best->sent) best = &s;
  OffsetSample o;
  o.local = 0.5 * (best->sent + best->received);
  o.offset = best->remote - o.local;  // rank 0 stamped at the middle of the round trip, assuming symmetric paths
  o.error = 0.5 * (best->received - best->sent);
  return o;
}

ClockModel::ClockModel(const OffsetSample& start, const OffsetSample& end) : a_(start), b_(end) {
  const double span = end.local - start.local;
  drift_ = span > 0 ? (end.offset - start.offset) / span : 0.0;
}

}  // namespace ripple::trace
