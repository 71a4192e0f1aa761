// The texts of `sources` (PAPI, perf and hwloc messages) as JSON: every text valid UTF-8 (RFC 8259
// wants it) without losing what its bytes said, escaped by nlohmann::json, parsed back the same.
#include "json_text.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "sources_json.hpp"

namespace ripple::trace::detail {
namespace {

TEST(JsonText, WellFormedUtf8IsKept) {
  EXPECT_EQ(valid_utf8(R"(no "PMU" at C:\x)"), R"(no "PMU" at C:\x)");
  EXPECT_EQ(valid_utf8("hwloc 2.9.0 — ü"), "hwloc 2.9.0 — ü");
  EXPECT_EQ(valid_utf8("\xe2\x82\xac \xf0\x9f\x98\x80"), "\xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(valid_utf8(std::string("a\0b", 3)), std::string("a\0b", 3));
  EXPECT_EQ(valid_utf8(""), "");
}

// Bytes that are not well-formed UTF-8 (RFC 3629) become the code point of the same number, each
// (U+0080 to U+00FF: two bytes); over random bytes the result is always valid UTF-8, which
// nlohmann::json's strict dump holds it to.
TEST(JsonText, BytesThatAreNotUtf8BecomeTheirLatin1CodePoints) {
  EXPECT_EQ(valid_utf8("caf\xe9"), "caf\xc3\xa9");                                // Latin-1 é
  EXPECT_EQ(valid_utf8("\xc3"), "\xc3\x83");                                      // cut short
  EXPECT_EQ(valid_utf8("\xc0\xaf"), "\xc3\x80\xc2\xaf");                          // overlong '/'
  EXPECT_EQ(valid_utf8("\xed\xa0\x80"), "\xc3\xad\xc2\xa0\xc2\x80");              // a surrogate
  EXPECT_EQ(valid_utf8("\xf4\x90\x80\x80"), "\xc3\xb4\xc2\x90\xc2\x80\xc2\x80");  // beyond U+10FFFF
  std::mt19937 random(7);
  for (int k = 0; k < 2000; ++k) {
    std::string bytes(static_cast<std::size_t>(random() % 24), '\0');
    for (char& b : bytes) b = static_cast<char>(random() % 256);
    const std::string text = nlohmann::json(valid_utf8(bytes)).dump();  // throws on invalid UTF-8
    EXPECT_EQ(nlohmann::json::parse(text).get<std::string>(), valid_utf8(bytes)) << k;
  }
}

// A rank's sources: the counter status text's lines become the "counters" map (split at the first
// ": ", since event names hold "::"), every text kept as it was, in the documented order.
TEST(SourcesJson, CounterLinesBecomeAMapAndEveryTextIsKept) {
  const std::string counters =
      "perf::TASK-CLOCK: active via perf_event_open (PAPI: Event does not exist)\n"
      "PAPI_TOT_CYC: unavailable: PAPI: \"disabled\"\n"
      "\n"
      "odd line";
  const std::string text =
      sources_json("active", counters, "unavailable: no hardware PMU", "hwloc 2.9.0", R"({"btl_vader_eager_limit": 4096})");
  EXPECT_EQ(text.find("{\"mpi\":"), 0U) << text;
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
  std::string keys;
  for (const auto& [key, value] : j.items()) keys += key + " ";
  EXPECT_EQ(keys, "mpi counters perf hwloc eager_limits ");
  EXPECT_EQ(j["counters"]["perf::TASK-CLOCK"], "active via perf_event_open (PAPI: Event does not exist)");
  EXPECT_EQ(j["counters"]["PAPI_TOT_CYC"], "unavailable: PAPI: \"disabled\"");
  EXPECT_EQ(j["counters"]["odd line"], "");
  EXPECT_EQ(j["counters"].size(), 3U);
  EXPECT_EQ(j["perf"], "unavailable: no hardware PMU");
  EXPECT_EQ(j["eager_limits"]["btl_vader_eager_limit"], 4096);
  const nlohmann::json recovered = nlohmann::json::parse(sources_json("active (recovered)", "", "a\\b\xe9", ""));
  EXPECT_EQ(recovered["counters"], nlohmann::json::object());
  EXPECT_EQ(recovered["perf"], "a\\b\xc3\xa9");
  EXPECT_FALSE(recovered.contains("eager_limits"));
}

}  // namespace
}  // namespace ripple::trace::detail
