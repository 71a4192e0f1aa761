#pragma once
// Names in the HDF5 files written by `ripple sim` (docs/sim-format.md). Readers check schema_version.
namespace ripple::model::sim_schema {
inline constexpr const char* kSchema = "ripple-sim";
inline constexpr long kVersion = 1;
inline constexpr const char* kSchemaAttr = "schema";
inline constexpr const char* kVersionAttr = "schema_version";
inline constexpr const char* kConfigAttr = "config";
inline constexpr const char* kOscillatorsAttr = "oscillators";
inline constexpr const char* kTime = "/time";
inline constexpr const char* kPhase = "/phase";
inline constexpr const char* kOmega = "/omega";
inline constexpr const char* kOrderParameter = "/order_parameter";
}  // namespace ripple::model::sim_schema
