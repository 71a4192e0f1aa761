#include "ripple/common/error.hpp"

#include <fmt/format.h>

namespace ripple::detail {
void verify_failed(const char* cond, const std::string& msg, const char* file, int line) {
  throw Error(fmt::format("{} (internal check '{}' failed at {}:{})", msg, cond, file, line));
}
}  // namespace ripple::detail
