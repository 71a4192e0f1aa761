// The texts of `sources` (PAPI, perf and hwloc messages) inside JSON strings: quotes, backslashes and
// control characters escaped as JSON requires (RFC 8259, section 7), everything else as it was.
#include "json_text.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "ripple/common/json_check.hpp"
#include "sources_json.hpp"

namespace ripple::trace::detail {
namespace {

TEST(JsonText, QuotesBackslashesAndControlCharactersAreEscapedTheRestKept) {
  EXPECT_EQ(json_escape(R"(no "PMU" at C:\x)"), R"(no \"PMU\" at C:\\x)");
  EXPECT_EQ(json_escape(std::string("a\nb\tc\x01") + '\0' + "d"), R"(a\u000ab\u0009c\u0001\u0000d)");
  EXPECT_EQ(json_escape("hwloc 2.9.0 — ü"), "hwloc 2.9.0 — ü");  // UTF-8 passes unchanged
  EXPECT_EQ(json_escape(""), "");
}

// Bytes that are not well-formed UTF-8 (RFC 3629) become \u00XX, each: the text stays valid JSON,
// which nlohmann::json (an independent parser) holds it to, over random bytes too.
TEST(JsonText, BytesThatAreNotUtf8AreEscapedSoThatTheTextStaysValidJson) {
  EXPECT_EQ(json_escape("caf\xe9"), R"(caf\u00e9)");                                         // Latin-1
  EXPECT_EQ(json_escape("\xc3"), R"(\u00c3)");                                               // cut short
  EXPECT_EQ(json_escape("\xc0\xaf"), R"(\u00c0\u00af)");                                     // overlong '/'
  EXPECT_EQ(json_escape("\xed\xa0\x80"), R"(\u00ed\u00a0\u0080)");                           // a surrogate
  EXPECT_EQ(json_escape("\xf4\x90\x80\x80"), R"(\u00f4\u0090\u0080\u0080)");                 // beyond U+10FFFF
  EXPECT_EQ(json_escape("\xe2\x82\xac \xf0\x9f\x98\x80"), "\xe2\x82\xac \xf0\x9f\x98\x80");  // kept
  std::mt19937 random(7);
  for (int k = 0; k < 2000; ++k) {
    std::string bytes(static_cast<std::size_t>(random() % 24), '\0');
    for (char& b : bytes) b = static_cast<char>(random() % 256);
    EXPECT_TRUE(is_json_object("{\"x\": \"" + json_escape(bytes) + "\"}")) << k;
  }
}

// A rank's sources: the counter status text's lines become the "counters" map (split at the first
// ": ", since event names hold "::"), every text escaped.
TEST(SourcesJson, CounterLinesBecomeAMapAndEveryTextIsEscaped) {
  const std::string counters =
      "perf::TASK-CLOCK: active via perf_event_open (PAPI: Event does not exist)\n"
      "PAPI_TOT_CYC: unavailable: PAPI: \"disabled\"\n"
      "\n"
      "odd line";
  EXPECT_EQ(sources_json("active", counters, "unavailable: no hardware PMU", "hwloc 2.9.0"),
            R"j({"mpi": "active", "counters": {"perf::TASK-CLOCK": "active via perf_event_open (PAPI: Event does not exist)", )j"
            R"j("PAPI_TOT_CYC": "unavailable: PAPI: \"disabled\"", "odd line": ""}, "perf": "unavailable: no hardware PMU", )j"
            R"j("hwloc": "hwloc 2.9.0"})j");
  EXPECT_EQ(sources_json("active (recovered)", "", "a\\b", ""),
            R"j({"mpi": "active (recovered)", "counters": {}, "perf": "a\\b", "hwloc": ""})j");
}

}  // namespace
}  // namespace ripple::trace::detail
