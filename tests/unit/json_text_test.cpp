// The texts of `sources` (PAPI, perf and hwloc messages) inside JSON strings: quotes, backslashes and
// control characters escaped as JSON requires (RFC 8259, section 7), everything else as it was.
#include "json_text.hpp"

#include <gtest/gtest.h>

#include <string>

#include "sources_json.hpp"

namespace ripple::trace::detail {
namespace {

TEST(JsonText, QuotesBackslashesAndControlCharactersAreEscapedTheRestKept) {
  EXPECT_EQ(json_escape(R"(no "PMU" at C:\x)"), R"(no \"PMU\" at C:\\x)");
  EXPECT_EQ(json_escape(std::string("a\nb\tc\x01") + '\0' + "d"), R"(a\u000ab\u0009c\u0001\u0000d)");
  EXPECT_EQ(json_escape("hwloc 2.9.0 — ü"), "hwloc 2.9.0 — ü");  // UTF-8 passes unchanged
  EXPECT_EQ(json_escape(""), "");
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
