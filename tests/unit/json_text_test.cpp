// The texts of `sources` (PAPI, perf and hwloc messages) inside JSON strings: quotes, backslashes and
// control characters escaped as JSON requires (RFC 8259, section 7), everything else as it was.
#include "json_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace ripple::trace::detail {
namespace {

TEST(JsonText, QuotesBackslashesAndControlCharactersAreEscapedTheRestKept) {
  EXPECT_EQ(json_escape(R"(no "PMU" at C:\x)"), R"(no \"PMU\" at C:\\x)");
  EXPECT_EQ(json_escape(std::string("a\nb\tc\x01") + '\0' + "d"), R"(a\u000ab\u0009c\u0001\u0000d)");
  EXPECT_EQ(json_escape("hwloc 2.9.0 — ü"), "hwloc 2.9.0 — ü");  // UTF-8 passes unchanged
  EXPECT_EQ(json_escape(""), "");
}

}  // namespace
}  // namespace ripple::trace::detail
