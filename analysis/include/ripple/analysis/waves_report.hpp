#pragma once
// What `ripple waves` prints and writes: a text summary, JSON (schema ripple-waves, docs/waves.md)
// and CSV tables.
#include <string>

#include "ripple/analysis/iteration_table.hpp"
#include "ripple/analysis/waves.hpp"

namespace ripple::analysis {

inline constexpr const char* kWavesSchema = "ripple-waves";
inline constexpr int kWavesVersion = 1;
// The table goes into the JSON (for `ripple plot waves`) up to this many cells.
inline constexpr long kJsonTableCells = 1'000'000;

std::string waves_text(const IterationTable& t, const WavesResult& w, const WavesOptions& o);
std::string waves_json(const IterationTable& t, const WavesResult& w, const WavesOptions& o);
// table.csv, sources.csv, arrivals.csv, desync.csv in `dir` (made if missing).
void write_waves_csv(const std::string& dir, const IterationTable& t, const WavesResult& w);

}  // namespace ripple::analysis
