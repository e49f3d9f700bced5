// parse_json_unique_keys (unique_key_json.h): a key repeated in one object is refused with both
// lines; the same key in different objects, in nested objects or as a string value is fine.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "sim/config/unique_key_json.h"

namespace socsim::config {
namespace {

TEST(UniqueKeyJson, ParsesLikeNlohmannWithoutRepeats) {
  const std::string text = R"({"a": {"k": 1}, "b": {"k": 2}, "k": "k", "l": [{"k": 3}, {"k": 4}]})";
  EXPECT_EQ(parse_json_unique_keys(text), nlohmann::json::parse(text));
}

TEST(UniqueKeyJson, ARepeatNamesItsLineAndTheFirst) {
  const std::string text = "{\n \"x\": {\"k\": 0},\n \"k\": 1,\n \"v\": \"\\\"k\\\": 5\",\n \"k\": 2\n}";
  try {
    parse_json_unique_keys(text);
    FAIL() << "accepted";
  } catch (const DuplicateJsonKey& e) {
    EXPECT_EQ(e.key(), "k");
    EXPECT_EQ(e.line(), 5);        // the third "k": key, not the escaped text in line 4's value
    EXPECT_EQ(e.first_line(), 3);  // the first in the same object, not the nested one on line 2
    EXPECT_EQ(duplicate_key_message(e).find("(line 5; the first at line 3)") != std::string::npos, true)
        << duplicate_key_message(e);
  }
}

TEST(UniqueKeyJson, ARepeatInsideANestedObjectIsFound) {
  EXPECT_THROW(parse_json_unique_keys(R"({"a": [{"b": {"c": 1, "c": 1}}]})"), DuplicateJsonKey);
}

TEST(UniqueKeyJson, SyntaxErrorsStillComeFromTheParser) {
  EXPECT_THROW(parse_json_unique_keys(R"({"a": )"), nlohmann::json::parse_error);
}

}  // namespace
}  // namespace socsim::config
