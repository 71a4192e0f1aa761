#pragma once
// What `ripple compare` prints and writes: a text table, JSON (schema ripple-compare) and an HDF5
// result (docs/compare.md).
#include <string>

#include "ripple/analysis/compare.hpp"

namespace ripple::analysis {

inline constexpr const char* kCompareSchema = "ripple-compare";
inline constexpr int kCompareVersion = 1;

std::string compare_text(const CompareResult& r);
std::string compare_json(const CompareResult& r);

}  // namespace ripple::analysis
