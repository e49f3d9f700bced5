// Lists: sequences of maps (cpu clusters) and lists of numbers.
#include <gtest/gtest.h>

#include "sim/config/config_tree.h"
#include "tests/unit/config/config_test_helpers.h"

namespace socsim::config {
namespace {

using testing::capture_config_error;

constexpr std::string_view kDoc =
    "cpu:\n"                      // 1
    "  clusters:\n"               // 2
    "    - name: little\n"        // 3
    "      cores: 4\n"            // 4
    "    - name: big\n"           // 5
    "      cores: 2\n"            // 6
    "      freq: 3.2 GHz\n"       // 7
    "    - just a string\n"       // 8
    "  opp_volts: [0.6, 0.75, 1.05]\n"  // 9
    "  bad_list: [1, x]\n";       // 10

class ConfigList : public ::testing::Test {
 protected:
  ConfigTree tree_ = ConfigTree::load_string(kDoc, "soc.yaml");
  Section cpu_ = tree_.root().child("cpu");
};

TEST_F(ConfigList, SequenceOfMaps) {
  Section clusters = cpu_.child("clusters");
  ASSERT_EQ(clusters.size(), 3u);
  EXPECT_EQ(clusters.at(0).string("name"), "little");
  EXPECT_EQ(clusters.at(0).integer("cores"), 4);
  Section big = clusters.at(1);
  EXPECT_EQ(big.path(), "cpu.clusters[1]");
  EXPECT_EQ(big.location().line, 5);
  EXPECT_DOUBLE_EQ(big.quantity("freq", Quantity::kFrequency), 3.2e9);
  EXPECT_STREQ(capture_config_error([&] { big.integer("threads"); }).what(),
               "soc.yaml:5: cpu.clusters[1].threads: missing required key");
}

TEST_F(ConfigList, ElementThatIsNotAMap) {
  const ConfigError e = capture_config_error([&] { cpu_.child("clusters").at(2); });
  EXPECT_STREQ(e.what(), "soc.yaml:8: cpu.clusters[2]: expected a map, got \"just a string\"");
}

TEST_F(ConfigList, IndexOutOfRange) {
  const ConfigError e = capture_config_error([&] { cpu_.child("clusters").at(3); });
  EXPECT_EQ(e.key(), "cpu.clusters");
  EXPECT_EQ(e.message(), "index 3 out of range, the list has 3 entries");
}

TEST_F(ConfigList, MapIsNotAList) {
  EXPECT_EQ(capture_config_error([&] { cpu_.size(); }).message(),
            "expected a list of maps, got a map");
  EXPECT_EQ(capture_config_error([&] { cpu_.child("clusters").integer("x"); }).message(),
            "expected a map, got a list");
}

TEST_F(ConfigList, NumberList) {
  EXPECT_EQ(cpu_.number_list("opp_volts"), (std::vector<double>{0.6, 0.75, 1.05}));
  EXPECT_STREQ(capture_config_error([&] { cpu_.number_list("bad_list"); }).what(),
               "soc.yaml:10: cpu.bad_list[1]: expected a number, got \"x\"");
  EXPECT_EQ(capture_config_error([&] { cpu_.number_list("clusters"); }).message(),
            "expected a number, got a map");
  ConfigTree t = ConfigTree::load_string("v: 3\n", "n.yaml");
  EXPECT_EQ(capture_config_error([&] { t.root().number_list("v"); }).message(),
            "expected a list of numbers such as [64, 128], got \"3\"");
}

TEST_F(ConfigList, AnEmptyListOrMapIsCalledEmpty) {
  // "expected a non-empty list of values, got a list" read as a contradiction.
  ConfigTree t = ConfigTree::load_string("seed: []\nm: {}\n", "g.yaml");
  EXPECT_EQ(capture_config_error([&] { t.root().scalar_list("seed"); }).message(), "expected a non-empty list of values, got an empty list");
  EXPECT_EQ(capture_config_error([&] { t.root().number("m"); }).message(), "expected a number, got an empty map");
}

}  // namespace
}  // namespace socsim::config
