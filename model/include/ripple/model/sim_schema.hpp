#pragma once
// Names in the HDF5 files written by `ripple sim` (docs/sim-format.md). Readers check schema_version.
namespace ripple::model::sim_schema {
inline constexpr const char* kSchema = "ripple-sim";
// 2 added /iteration_end (optional); version 1 files are version 2 files without it.
inline constexpr long kVersion = 2;
inline constexpr long kOldestVersion = 1;
inline constexpr const char* kSchemaAttr = "schema";
inline constexpr const char* kVersionAttr = "schema_version";
inline constexpr const char* kConfigAttr = "config";
inline constexpr const char* kOscillatorsAttr = "oscillators";
inline constexpr const char* kTime = "/time";
inline constexpr const char* kPhase = "/phase";
inline constexpr const char* kOmega = "/omega";
inline constexpr const char* kOrderParameter = "/order_parameter";
inline constexpr const char* kIterationEnd = "/iteration_end";  // [N, K]: when θ_i first reaches 2π(k+1)
}  // namespace ripple::model::sim_schema
