// The JSON check (nlohmann::json's, RFC 8259): what the tracer writes passes, what damage makes does not.
#include "ripple/common/json_check.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ripple {
namespace {

TEST(JsonCheck, AcceptsObjectsOfEveryKindOfValue) {
  EXPECT_TRUE(is_json_object("{}"));
  EXPECT_TRUE(is_json_object(" \n{ }\t"));
  EXPECT_TRUE(
      is_json_object(R"({"mpi": "active", "counters": {"perf::TASK-CLOCK": "active via papi"}, "perf": "a\"b\\c\u00e9\n"})"));
  EXPECT_TRUE(is_json_object(R"({"a": [1, -2.5e+3, 0, 0.25, 1E-7, true, false, null, [], {}], "b": {"c": [[["deep"]]]}})"));
  EXPECT_TRUE(is_json_object("{\"utf-8\": \"h\xc3\xa9\"}"));  // bytes above 0x7f pass
}

TEST(JsonCheck, RefusesWhatIsNotOneWellFormedObject) {
  using namespace std::string_literals;
  for (const std::string& bad : std::vector<std::string>{"",
                                                         "[]",
                                                         "\"text\"",
                                                         "1",
                                                         "{",
                                                         "}",
                                                         "{\"a\"}",
                                                         "{\"a\": }",
                                                         "{\"a\": 1,}",
                                                         "{\"a\": 1} {}",
                                                         "{\"a\": 1}x",
                                                         "{a: 1}",
                                                         "{\"a\": 01}",
                                                         "{\"a\": 1.}",
                                                         "{\"a\": .5}",
                                                         "{\"a\": 1e}",
                                                         "{\"a\": -}",
                                                         "{\"a\": tru}",
                                                         "{\"a\": \"unterminated}",
                                                         "{\"a\": \"bad \\q escape\"}",
                                                         "{\"a\": \"\\u12g4\"}",
                                                         "{\"a\": \"tab\there\"}",
                                                         "{\"a\": \"nul\0\"}"s,
                                                         "{\"a\": [1, 2}",
                                                         "{\"a\": [1 2]}"})
    EXPECT_FALSE(is_json_object(bad)) << bad;
}

TEST(JsonCheck, DeepNestingIsNoRecursionWithoutEnd) {
  const auto nested = [](int depth) { return "{\"a\": " + std::string(depth, '[') + std::string(depth, ']') + "}"; };
  EXPECT_TRUE(is_json_object(nested(1000000)));
  EXPECT_FALSE(is_json_object(nested(1000000).substr(1)));
}

}  // namespace
}  // namespace ripple
