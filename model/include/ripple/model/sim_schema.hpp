#pragma once
// Names in the HDF5 files written by `ripple sim` (docs/sim-format.md). Readers check schema_version.
namespace ripple::model::sim_schema {
inline constexpr const char* kSchema = "ripple-sim";
// 2 added /iteration_end (optional); version 1 files are version 2 files without it. 3 added the
// attributes `complete`, `stored_states` and `time_reached` (the file is flushed as the run goes).
inline constexpr long kVersion = 3;
inline constexpr long kOldestVersion = 1;
inline constexpr const char* kSchemaAttr = "schema";
inline constexpr const char* kVersionAttr = "schema_version";
inline constexpr const char* kConfigAttr = "config";
inline constexpr const char* kOscillatorsAttr = "oscillators";
inline constexpr const char* kCompleteAttr = "complete";           // int64: 1 once the run reached t_end
inline constexpr const char* kStoredStatesAttr = "stored_states";  // int64: rows of /phase, /time final
inline constexpr const char* kTimeReachedAttr = "time_reached";    // float64: the run's time at the last flush
inline constexpr const char* kTime = "/time";
inline constexpr const char* kPhase = "/phase";
inline constexpr const char* kOmega = "/omega";
inline constexpr const char* kOrderParameter = "/order_parameter";
inline constexpr const char* kIterationEnd = "/iteration_end";  // [N, K]: when θ_i first reaches 2π(k+1)

// The checkpoint beside the output, OUTPUT.checkpoint (docs/sim-format.md, "Checkpoints").
namespace checkpoint {
inline constexpr const char* kSchema = "ripple-sim-checkpoint";
inline constexpr long kVersion = 1;
inline constexpr const char* kSuffix = ".checkpoint";
// Root attributes besides schema, schema_version, config and oscillators.
inline constexpr const char* kTime = "time";
inline constexpr const char* kSegmentStart = "segment_start";
inline constexpr const char* kStepSize = "step_size";
inline constexpr const char* kNextOutput = "next_output";
inline constexpr const char* kSteps = "steps";
inline constexpr const char* kRejectedSteps = "rejected_steps";
inline constexpr const char* kRhsEvaluations = "rhs_evaluations";
inline constexpr const char* kHistoryEntries = "history_entries";    // -1: no delay history
inline constexpr const char* kCrossingFlushes = "crossing_flushes";  // -1: no [output] iterations
inline constexpr const char* kCrossingExtent = "crossing_extent";
inline constexpr const char* kCrossingFirst = "crossing_first";
// Datasets, float64, oscillators along the last dimension.
inline constexpr const char* kPhase = "/phase";                       // [N]
inline constexpr const char* kHistoryTime = "/history_time";          // [E]
inline constexpr const char* kHistoryPhase = "/history_phase";        // [E, N]
inline constexpr const char* kHistorySlope = "/history_slope";        // [E, N]
inline constexpr const char* kCrossingReached = "/crossing_reached";  // [N]
inline constexpr const char* kCrossingWritten = "/crossing_written";  // [N]
inline constexpr const char* kCrossingWindow = "/crossing_window";    // [W, N]
}  // namespace checkpoint
}  // namespace ripple::model::sim_schema
