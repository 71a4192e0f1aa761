#pragma once
// What the timeline model needs, taken from the trace: the communication parameters (alpha, beta,
// the call overhead, eager limits, collective costs) and each op's compute and duration, either as
// recorded (replay: checks the dependency model) or as a model would guess them without seeing the
// run (predict: each iteration's typical compute, the injected delays, drawn noise).
#include <cstdint>
#include <string>
#include <vector>

#include "ripple/analysis/program.hpp"
#include "ripple/analysis/timeline_model.hpp"

namespace ripple::analysis {

// `eager_limit` >= 0 overrides the trace's (both within and between nodes). `notes` says where
// each value came from.
TimelineParams fit_timeline(const Program& p, std::int64_t eager_limit, std::vector<std::string>& notes);

struct OpTimes {
  std::vector<double> gap, local;  // per op: compute before it; duration of a call the model does not model
};

// The trace's own.
OpTimes replay_times(const Program& p);

// For the timed iterations (markers 0, 1, ...): per rank and place in the iteration, the median
// compute over the iterations (less what was injected), plus the injected delays, plus (if `noise`)
// per rank and iteration one draw of the iterations' compute residuals, seeded. Elsewhere (warm-up,
// prologue, epilogue) the trace's own.
OpTimes predict_times(const Program& p, bool noise, std::uint64_t seed);

}  // namespace ripple::analysis
