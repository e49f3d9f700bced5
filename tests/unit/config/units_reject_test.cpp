// Malformed quantities must be rejected with a message that says what was expected.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/config/units.h"
#include "tests/unit/config/config_test_helpers.h"

namespace socsim::config {
namespace {

using testing::capture_invalid_argument;

TEST(ConfigUnitsReject, MessageNamesQuantityExampleAndUnits) {
  EXPECT_EQ(capture_invalid_argument([] { parse_quantity("abc", Quantity::kBandwidth); }),
            "expected a bandwidth such as \"68 GB/s\" (units: B/s kB/s MB/s GB/s TB/s KiB/s "
            "MiB/s GiB/s), got \"abc\"");
  EXPECT_EQ(capture_invalid_argument([] { parse_quantity("x", Quantity::kEnergy); }),
            "expected an energy such as \"10 pJ\" (units: pJ nJ uJ mJ J), got \"x\"");
}

TEST(ConfigUnitsReject, BareNumberIsMissingUnit) {
  const std::string msg =
      capture_invalid_argument([] { parse_quantity("68", Quantity::kBandwidth); });
  EXPECT_EQ(msg.rfind("expected a bandwidth", 0), 0u) << msg;
  EXPECT_NE(msg.find("missing unit"), std::string::npos) << msg;
  EXPECT_THROW(parse_quantity("400", Quantity::kTime), std::invalid_argument);
  EXPECT_THROW(parse_time_ticks("400"), std::invalid_argument);
  EXPECT_THROW(parse_quantity("4096", Quantity::kSize), std::invalid_argument);
}

TEST(ConfigUnitsReject, TrailingGarbageAndUnknownUnits) {
  const std::string msg =
      capture_invalid_argument([] { parse_quantity("68 GB/sx", Quantity::kBandwidth); });
  EXPECT_NE(msg.find("unknown unit \"GB/sx\""), std::string::npos) << msg;
  EXPECT_THROW(parse_quantity("68 GB/s extra", Quantity::kBandwidth), std::invalid_argument);
  EXPECT_THROW(parse_quantity("68 Gb/s", Quantity::kBandwidth), std::invalid_argument);
  EXPECT_THROW(parse_quantity("68 gb/s", Quantity::kBandwidth), std::invalid_argument);  // case
  EXPECT_THROW(parse_quantity("2 ghz", Quantity::kFrequency), std::invalid_argument);
  EXPECT_THROW(parse_quantity("8 Kib", Quantity::kSize), std::invalid_argument);
  EXPECT_THROW(parse_quantity("1 KB", Quantity::kSize), std::invalid_argument);  // kB only
  EXPECT_THROW(parse_quantity("5 sec", Quantity::kTime), std::invalid_argument);
  EXPECT_THROW(parse_quantity("3 pJ/byte", Quantity::kEnergyPerByte), std::invalid_argument);
}

TEST(ConfigUnitsReject, UnitOfAnotherQuantity) {
  EXPECT_THROW(parse_quantity("68 GB", Quantity::kBandwidth), std::invalid_argument);
  EXPECT_THROW(parse_quantity("2 GHz", Quantity::kTime), std::invalid_argument);
  EXPECT_THROW(parse_quantity("5 pJ", Quantity::kEnergyPerByte), std::invalid_argument);
  EXPECT_THROW(parse_quantity("5 W", Quantity::kEnergy), std::invalid_argument);
}

TEST(ConfigUnitsReject, EmptyAndMalformedNumbers) {
  EXPECT_THROW(parse_quantity("", Quantity::kBandwidth), std::invalid_argument);
  EXPECT_THROW(parse_quantity("   ", Quantity::kTime), std::invalid_argument);
  EXPECT_THROW(parse_quantity("GB/s", Quantity::kBandwidth), std::invalid_argument);
  EXPECT_THROW(parse_quantity("1e GB/s", Quantity::kBandwidth), std::invalid_argument);
  EXPECT_THROW(parse_quantity("1e+ s", Quantity::kTime), std::invalid_argument);
  EXPECT_THROW(parse_quantity("1e", Quantity::kNumber), std::invalid_argument);
  EXPECT_THROW(parse_quantity(". s", Quantity::kTime), std::invalid_argument);
  EXPECT_THROW(parse_quantity("1..2 s", Quantity::kTime), std::invalid_argument);
  EXPECT_THROW(parse_quantity("0x10 B", Quantity::kSize), std::invalid_argument);
  EXPECT_THROW(parse_quantity("1,5 W", Quantity::kPower), std::invalid_argument);
  EXPECT_THROW(parse_quantity("1_000 Hz", Quantity::kFrequency), std::invalid_argument);
}

TEST(ConfigUnitsReject, NanAndInfinity) {
  EXPECT_THROW(parse_quantity("nan", Quantity::kNumber), std::invalid_argument);
  EXPECT_THROW(parse_quantity("NaN GB/s", Quantity::kBandwidth), std::invalid_argument);
  EXPECT_THROW(parse_quantity("inf", Quantity::kNumber), std::invalid_argument);
  EXPECT_THROW(parse_quantity("-inf W", Quantity::kPower), std::invalid_argument);
  EXPECT_THROW(parse_quantity("infinity s", Quantity::kTime), std::invalid_argument);
  // Overflowing the double range is as unusable as writing "inf".
  EXPECT_THROW(parse_quantity("1e400 GB/s", Quantity::kBandwidth), std::invalid_argument);
}

TEST(ConfigUnitsReject, NegativeDimensionedQuantities) {
  EXPECT_THROW(parse_quantity("-5 GB/s", Quantity::kBandwidth), std::invalid_argument);
  EXPECT_THROW(parse_quantity("-1 ns", Quantity::kTime), std::invalid_argument);
  EXPECT_THROW(parse_time_ticks("-1 ns"), std::invalid_argument);
}

TEST(ConfigUnitsReject, PlainNumberRejectsUnits) {
  EXPECT_THROW(parse_quantity("3 GB", Quantity::kNumber), std::invalid_argument);
  EXPECT_THROW(parse_quantity("abc", Quantity::kNumber), std::invalid_argument);
}

}  // namespace
}  // namespace socsim::config
