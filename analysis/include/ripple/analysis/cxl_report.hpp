#pragma once
// `ripple cxl`'s outputs: a text table and JSON (schema ripple-cxl, docs/cxl.md).
#include <string>

#include "ripple/analysis/cxl_predict.hpp"

namespace ripple::analysis {

std::string cxl_text(const CxlResult& r);
std::string cxl_json(const CxlResult& r);

}  // namespace ripple::analysis
