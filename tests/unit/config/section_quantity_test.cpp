// Section quantity readers: unit parsing through the tree, ranges printed with units.
#include <gtest/gtest.h>

#include "sim/config/config_tree.h"
#include "tests/unit/config/config_test_helpers.h"

namespace socsim::config {
namespace {

using testing::capture_config_error;

constexpr std::string_view kDoc =
    "dram:\n"                   // 1
    "  peak: 68 GB/s\n"         // 2
    "  latency: 1.5 ns\n"       // 3
    "  size: 8 GiB\n"           // 4
    "  idle: 0 mW\n"            // 5
    "  bad: 68 GB/sx\n"         // 6
    "  freq: 3200 MHz\n";       // 7

class ConfigQuantity : public ::testing::Test {
 protected:
  ConfigTree tree_ = ConfigTree::load_string(kDoc, "soc.yaml");
  Section dram_ = tree_.root().child("dram");
};

TEST_F(ConfigQuantity, ReadsSiValues) {
  EXPECT_DOUBLE_EQ(dram_.quantity("peak", Quantity::kBandwidth), 68e9);
  EXPECT_DOUBLE_EQ(dram_.quantity("size", Quantity::kSize), 8.0 * 1073741824.0);
  EXPECT_EQ(dram_.time("latency"), 1500u);
  EXPECT_DOUBLE_EQ(dram_.quantity("latency", Quantity::kTime), 1.5e-9);
  EXPECT_DOUBLE_EQ(dram_.positive_quantity("freq", Quantity::kFrequency), 3.2e9);
}

TEST_F(ConfigQuantity, ParseErrorsCarryKeyAndLine) {
  const ConfigError e =
      capture_config_error([&] { dram_.quantity("bad", Quantity::kBandwidth); });
  EXPECT_EQ(e.key(), "dram.bad");
  EXPECT_EQ(e.location().line, 6);
  EXPECT_EQ(std::string(e.what()).rfind("soc.yaml:6: dram.bad: expected a bandwidth such as", 0),
            0u)
      << e.what();
  // A time where a bandwidth is expected, and the other way round.
  EXPECT_THROW(dram_.quantity("latency", Quantity::kBandwidth), ConfigError);
  EXPECT_THROW(dram_.time("peak"), ConfigError);
}

TEST_F(ConfigQuantity, RangeIsPrintedInUnits) {
  EXPECT_DOUBLE_EQ(dram_.quantity("peak", Quantity::kBandwidth, 1e9, 100e9), 68e9);
  EXPECT_STREQ(
      capture_config_error([&] { dram_.quantity("peak", Quantity::kBandwidth, 1e9, 50e9); })
          .what(),
      "soc.yaml:2: dram.peak: must be in [1 GB/s, 50 GB/s], got 68 GB/s");
  EXPECT_EQ(capture_config_error([&] {
              dram_.quantity("size", Quantity::kSize, 1024.0, 4.0 * 1073741824.0);
            }).message(),
            "must be in [1 KiB, 4 GiB], got 8 GiB");
  EXPECT_EQ(capture_config_error([&] {
              dram_.quantity("latency", Quantity::kTime, 2e-9, 1e-6);
            }).message(),
            "must be in [2 ns, 1 us], got 1.5 ns");
  EXPECT_EQ(capture_config_error([&] {
              dram_.quantity("freq", Quantity::kFrequency, 0.0, 2.5e9);
            }).message(),
            "must be in [0 Hz, 2.5 GHz], got 3200 MHz");
}

TEST_F(ConfigQuantity, PositiveQuantity) {
  EXPECT_STREQ(capture_config_error([&] { dram_.positive_quantity("idle", Quantity::kPower); })
                   .what(),
               "soc.yaml:5: dram.idle: must be > 0, got 0 mW");
}

TEST_F(ConfigQuantity, MapIsNotAQuantity) {
  EXPECT_EQ(capture_config_error([&] { tree_.root().quantity("dram", Quantity::kEnergy); })
                .message(),
            "expected an energy, got a map");
  EXPECT_EQ(capture_config_error([&] { tree_.root().time("dram"); }).message(),
            "expected a time, got a map");
}

}  // namespace
}  // namespace socsim::config
