// Section scalar readers: values, type errors, missing keys and ranges, with exact messages.
#include <gtest/gtest.h>

#include "sim/config/config_tree.h"
#include "tests/unit/config/config_test_helpers.h"

namespace socsim::config {
namespace {

using testing::capture_config_error;

// Line numbers of this document are asserted below.
constexpr std::string_view kDoc =
    "dram:\n"                 // 1
    "  channels: 4\n"         // 2
    "  ratio: 0.75\n"         // 3
    "  name: lpddr5x\n"       // 4
    "  ecc: true\n"           // 5
    "  width: abc\n"          // 6
    "  big: 1e3\n"            // 7
    "  sub:\n"                // 8
    "    x: 1\n"              // 9
    "  empty:\n"              // 10
    "  quoted: \"12\"\n";     // 11

class ConfigSection : public ::testing::Test {
 protected:
  ConfigTree tree_ = ConfigTree::load_string(kDoc, "soc.yaml");
  Section dram_ = tree_.root().child("dram");
};

TEST_F(ConfigSection, ReadsTypedValues) {
  EXPECT_EQ(dram_.integer("channels"), 4);
  EXPECT_DOUBLE_EQ(dram_.number("ratio"), 0.75);
  EXPECT_DOUBLE_EQ(dram_.number("channels"), 4.0);  // an integer is also a number
  EXPECT_DOUBLE_EQ(dram_.number("big"), 1000.0);
  EXPECT_EQ(dram_.string("name"), "lpddr5x");
  EXPECT_TRUE(dram_.boolean("ecc"));
  EXPECT_EQ(dram_.integer("quoted"), 12);
  EXPECT_EQ(dram_.string("channels"), "4");
}

TEST_F(ConfigSection, PathsAndLocations) {
  EXPECT_EQ(tree_.root().path(), "");
  EXPECT_EQ(dram_.path(), "dram");
  EXPECT_EQ(dram_.child("sub").path(), "dram.sub");
  EXPECT_EQ(dram_.location().file, "soc.yaml");
  EXPECT_EQ(dram_.location().line, 1);
  EXPECT_EQ(dram_.location_of("ratio").line, 3);
  EXPECT_EQ(dram_.location_of("ratio").column, 10);
}

TEST_F(ConfigSection, WrongTypeMessages) {
  EXPECT_STREQ(capture_config_error([&] { dram_.integer("width"); }).what(),
               "soc.yaml:6: dram.width: expected an integer, got \"abc\"");
  EXPECT_STREQ(capture_config_error([&] { dram_.integer("ratio"); }).what(),
               "soc.yaml:3: dram.ratio: expected an integer, got \"0.75\"");
  EXPECT_STREQ(capture_config_error([&] { dram_.integer("big"); }).what(),
               "soc.yaml:7: dram.big: expected an integer, got \"1e3\"");
  EXPECT_STREQ(capture_config_error([&] { dram_.number("name"); }).what(),
               "soc.yaml:4: dram.name: expected a number, got \"lpddr5x\"");
  EXPECT_STREQ(capture_config_error([&] { dram_.boolean("channels"); }).what(),
               "soc.yaml:2: dram.channels: expected true or false, got \"4\"");
  EXPECT_STREQ(capture_config_error([&] { dram_.integer("empty"); }).what(),
               "soc.yaml:10: dram.empty: expected an integer, got an empty value");
}

TEST_F(ConfigSection, MapVersusScalar) {
  EXPECT_STREQ(capture_config_error([&] { dram_.string("sub"); }).what(),
               "soc.yaml:8: dram.sub: expected a string, got a map");
  EXPECT_STREQ(capture_config_error([&] { dram_.child("name"); }).what(),
               "soc.yaml:4: dram.name: expected a map, got \"lpddr5x\"");
  EXPECT_EQ(capture_config_error([&] { dram_.optional_child("ecc"); }).message(),
            "expected a map, got \"true\"");
}

// Options of a mechanism the reader does not have here: the first present key is refused with its
// line; absent keys pass.
TEST_F(ConfigSection, RefuseNamesTheFirstPresentKeyAtItsLine) {
  EXPECT_NO_THROW(dram_.refuse({"peak", "colour"}, "not here"));
  const ConfigError e = capture_config_error([&] { dram_.refuse({"peak", "ratio", "name"}, "applies to something else"); });
  EXPECT_STREQ(e.what(), "soc.yaml:3: dram.ratio: applies to something else");
}

// A rule between two keys blames the one the user changed with --set, else the first named.
TEST_F(ConfigSection, ChangedOfPrefersTheKeyGivenWithSet) {
  EXPECT_EQ(dram_.changed_of({"channels", "ratio"}), "channels");
  EXPECT_EQ(dram_.changed_of({"peak", "ratio"}), "peak");  // absent keys are never "changed"
  ConfigTree tree = ConfigTree::load_string(kDoc, "soc.yaml");
  tree.apply_override("dram.ratio=0.5");
  const Section dram = tree.root().child("dram");
  EXPECT_EQ(dram.changed_of({"channels", "ratio"}), "ratio");
  EXPECT_EQ(dram.location_of(dram.changed_of({"channels", "ratio"})).file, "--set");
  EXPECT_EQ(dram.changed_of({"ratio", "channels"}), "ratio");
}

TEST_F(ConfigSection, MissingRequiredKey) {
  const ConfigError e = capture_config_error([&] { dram_.number("peak"); });
  EXPECT_EQ(e.key(), "dram.peak");
  EXPECT_EQ(e.message(), "missing required key");
  EXPECT_EQ(e.location().line, 1);  // at the map that should contain it
  EXPECT_STREQ(e.what(), "soc.yaml:1: dram.peak: missing required key");
  EXPECT_EQ(capture_config_error([&] { tree_.root().child("npu"); }).key(), "npu");
  EXPECT_EQ(capture_config_error([&] { dram_.location_of("peak"); }).message(),
            "missing required key");
}

TEST_F(ConfigSection, OptionalChildAndDefaults) {
  EXPECT_FALSE(dram_.optional_child("timing").has_value());
  ASSERT_TRUE(dram_.optional_child("sub").has_value());
  EXPECT_EQ(dram_.optional_child("sub")->integer("x"), 1);
  EXPECT_DOUBLE_EQ(dram_.number_or("missing", 2.5), 2.5);
  EXPECT_EQ(dram_.integer_or("missing", -7), -7);
  EXPECT_FALSE(dram_.boolean_or("missing", false));
  EXPECT_EQ(dram_.string_or("missing", "dflt"), "dflt");
  // A present value must still have the right type.
  EXPECT_THROW(dram_.integer_or("width", 1), ConfigError);
  EXPECT_THROW(dram_.boolean_or("name", true), ConfigError);
}

TEST_F(ConfigSection, NumberRanges) {
  EXPECT_DOUBLE_EQ(dram_.number("ratio", 0.0, 1.0), 0.75);
  EXPECT_STREQ(capture_config_error([&] { dram_.number("ratio", 0.0, 0.5); }).what(),
               "soc.yaml:3: dram.ratio: must be in [0, 0.5], got 0.75");
  EXPECT_EQ(dram_.integer("channels", 1, 16), 4);
  EXPECT_STREQ(capture_config_error([&] { dram_.integer("channels", 8, 16); }).what(),
               "soc.yaml:2: dram.channels: must be in [8, 16], got 4");
  EXPECT_EQ(dram_.integer("channels", 4, 4), 4);  // bounds are inclusive
}

TEST_F(ConfigSection, Choice) {
  EXPECT_EQ(dram_.choice("name", {"lpddr5", "lpddr5x"}), "lpddr5x");
  EXPECT_STREQ(capture_config_error([&] { dram_.choice("name", {"hbm3", "ddr5"}); }).what(),
               "soc.yaml:4: dram.name: expected one of \"hbm3\", \"ddr5\", got \"lpddr5x\"");
}

TEST(ConfigSectionBoolean, OnlyTrueAndFalse) {
  ConfigTree tree = ConfigTree::load_string("a: false\nb: yes\nc: True\n", "b.yaml");
  Section root = tree.root();
  EXPECT_FALSE(root.boolean("a"));
  EXPECT_THROW(root.boolean("b"), ConfigError);
  EXPECT_THROW(root.boolean("c"), ConfigError);
}

TEST(ConfigSectionInteger, Limits) {
  ConfigTree tree = ConfigTree::load_string(
      "min: -9223372036854775808\nover: 9223372036854775808\nplus: +5\nhex: 0x10\n", "i.yaml");
  Section root = tree.root();
  EXPECT_EQ(root.integer("min"), INT64_MIN);
  EXPECT_THROW(root.integer("over"), ConfigError);
  EXPECT_EQ(root.integer("plus"), 5);
  EXPECT_THROW(root.integer("hex"), ConfigError);
}

}  // namespace
}  // namespace socsim::config
