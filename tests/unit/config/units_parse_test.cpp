// Every accepted unit and prefix, checked against the SI value it must produce.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/config/units.h"

namespace socsim::config {
namespace {

TEST(ConfigUnits, TimeUnitsInSeconds) {
  EXPECT_DOUBLE_EQ(parse_quantity("5 ps", Quantity::kTime), 5e-12);
  EXPECT_DOUBLE_EQ(parse_quantity("5 ns", Quantity::kTime), 5e-9);
  EXPECT_DOUBLE_EQ(parse_quantity("400 us", Quantity::kTime), 400e-6);
  EXPECT_DOUBLE_EQ(parse_quantity("3 ms", Quantity::kTime), 3e-3);
  EXPECT_DOUBLE_EQ(parse_quantity("2 s", Quantity::kTime), 2.0);
}

TEST(ConfigUnits, FrequencyUnitsInHertz) {
  EXPECT_DOUBLE_EQ(parse_quantity("50 Hz", Quantity::kFrequency), 50.0);
  EXPECT_DOUBLE_EQ(parse_quantity("32 kHz", Quantity::kFrequency), 32e3);
  EXPECT_DOUBLE_EQ(parse_quantity("933 MHz", Quantity::kFrequency), 933e6);
  EXPECT_DOUBLE_EQ(parse_quantity("2.4 GHz", Quantity::kFrequency), 2.4e9);
}

TEST(ConfigUnits, BandwidthDecimalPrefixesArePowersOf1000) {
  EXPECT_DOUBLE_EQ(parse_quantity("100 B/s", Quantity::kBandwidth), 100.0);
  EXPECT_DOUBLE_EQ(parse_quantity("100 kB/s", Quantity::kBandwidth), 100e3);
  EXPECT_DOUBLE_EQ(parse_quantity("100 MB/s", Quantity::kBandwidth), 100e6);
  EXPECT_DOUBLE_EQ(parse_quantity("68 GB/s", Quantity::kBandwidth), 68e9);
  EXPECT_DOUBLE_EQ(parse_quantity("1.2 TB/s", Quantity::kBandwidth), 1.2e12);
}

TEST(ConfigUnits, BandwidthBinaryPrefixesArePowersOf1024) {
  EXPECT_DOUBLE_EQ(parse_quantity("1 KiB/s", Quantity::kBandwidth), 1024.0);
  EXPECT_DOUBLE_EQ(parse_quantity("1 MiB/s", Quantity::kBandwidth), 1048576.0);
  EXPECT_DOUBLE_EQ(parse_quantity("2 GiB/s", Quantity::kBandwidth), 2.0 * 1073741824.0);
}

TEST(ConfigUnits, SizeUnitsInBytes) {
  EXPECT_DOUBLE_EQ(parse_quantity("64 B", Quantity::kSize), 64.0);
  EXPECT_DOUBLE_EQ(parse_quantity("4 kB", Quantity::kSize), 4000.0);
  EXPECT_DOUBLE_EQ(parse_quantity("8 MB", Quantity::kSize), 8e6);
  EXPECT_DOUBLE_EQ(parse_quantity("12 GB", Quantity::kSize), 12e9);
  EXPECT_DOUBLE_EQ(parse_quantity("32 KiB", Quantity::kSize), 32768.0);
  EXPECT_DOUBLE_EQ(parse_quantity("2 MiB", Quantity::kSize), 2097152.0);
  EXPECT_DOUBLE_EQ(parse_quantity("8 GiB", Quantity::kSize), 8589934592.0);
}

TEST(ConfigUnits, SizesUpToExabytesAndAnEThatStartsAUnit) {
  // Up to the 16 EiB that a size too large for 64 bits is refused with. The E of "1EiB" starts
  // the unit (it was lexed as an exponent without digits: "expected a size"); "1e3" is still one.
  EXPECT_DOUBLE_EQ(parse_quantity("2 PiB", Quantity::kSize), 2.0 * 1125899906842624.0);
  EXPECT_DOUBLE_EQ(parse_quantity("3PB", Quantity::kSize), 3e15);
  EXPECT_DOUBLE_EQ(parse_quantity("1EiB", Quantity::kSize), 1152921504606846976.0);
  EXPECT_DOUBLE_EQ(parse_quantity("1.5EiB", Quantity::kSize), 1.5 * 1152921504606846976.0);
  EXPECT_DOUBLE_EQ(parse_quantity("2EB", Quantity::kSize), 2e18);
  EXPECT_DOUBLE_EQ(parse_quantity("1e3EB", Quantity::kSize), 1e21);
  EXPECT_DOUBLE_EQ(parse_quantity("1E3 B", Quantity::kSize), 1000.0);
  EXPECT_THROW(parse_quantity("1eB", Quantity::kSize), std::invalid_argument);   // unit "eB"
  EXPECT_THROW(parse_quantity("1E+EiB", Quantity::kSize), std::invalid_argument);  // a sign, no digits
}

TEST(ConfigUnits, PowerUnitsInWatts) {
  EXPECT_DOUBLE_EQ(parse_quantity("500 mW", Quantity::kPower), 0.5);
  EXPECT_DOUBLE_EQ(parse_quantity("4.5 W", Quantity::kPower), 4.5);
}

TEST(ConfigUnits, EnergyUnitsInJoules) {
  EXPECT_DOUBLE_EQ(parse_quantity("10 pJ", Quantity::kEnergy), 10e-12);
  EXPECT_DOUBLE_EQ(parse_quantity("10 nJ", Quantity::kEnergy), 10e-9);
  EXPECT_DOUBLE_EQ(parse_quantity("10 uJ", Quantity::kEnergy), 10e-6);
  EXPECT_DOUBLE_EQ(parse_quantity("10 mJ", Quantity::kEnergy), 10e-3);
  EXPECT_DOUBLE_EQ(parse_quantity("10 J", Quantity::kEnergy), 10.0);
}

TEST(ConfigUnits, EnergyPerByteUnitsInJoulesPerByte) {
  EXPECT_DOUBLE_EQ(parse_quantity("4 pJ/B", Quantity::kEnergyPerByte), 4e-12);
  EXPECT_DOUBLE_EQ(parse_quantity("0.5 nJ/B", Quantity::kEnergyPerByte), 0.5e-9);
  // 1 byte = 8 bits: 2.5 pJ/bit = 20 pJ/B.
  EXPECT_DOUBLE_EQ(parse_quantity("2.5 pJ/bit", Quantity::kEnergyPerByte), 20e-12);
}

TEST(ConfigUnits, PlainNumbers) {
  EXPECT_DOUBLE_EQ(parse_quantity("1.5", Quantity::kNumber), 1.5);
  EXPECT_DOUBLE_EQ(parse_quantity("-3", Quantity::kNumber), -3.0);
  EXPECT_DOUBLE_EQ(parse_quantity("3e9", Quantity::kNumber), 3e9);
}

TEST(ConfigUnits, NumberSpellings) {
  EXPECT_DOUBLE_EQ(parse_quantity("68GB/s", Quantity::kBandwidth), 68e9);  // space optional
  EXPECT_DOUBLE_EQ(parse_quantity("1.2 GHz", Quantity::kFrequency), 1.2e9);
  EXPECT_DOUBLE_EQ(parse_quantity("3e9 Hz", Quantity::kFrequency), 3e9);
  EXPECT_DOUBLE_EQ(parse_quantity("2.5E-3 s", Quantity::kTime), 2.5e-3);
  EXPECT_DOUBLE_EQ(parse_quantity(".5 W", Quantity::kPower), 0.5);
  EXPECT_DOUBLE_EQ(parse_quantity("+7 B", Quantity::kSize), 7.0);
  EXPECT_DOUBLE_EQ(parse_quantity("0 B/s", Quantity::kBandwidth), 0.0);
}

TEST(ConfigUnits, DecimalPrefixConversionIsCorrectlyRounded) {
  // 0.1 GHz must be the double nearest to 1e8, not 0.1 * 1e9 with an extra rounding step.
  EXPECT_EQ(parse_quantity("0.1 GHz", Quantity::kFrequency), 1e8);
  EXPECT_EQ(parse_quantity("1.1 ns", Quantity::kTime), 1.1e-9);
}

TEST(ConfigUnits, QuantityNames) {
  EXPECT_EQ(quantity_name(Quantity::kTime), "time");
  EXPECT_EQ(quantity_name(Quantity::kFrequency), "frequency");
  EXPECT_EQ(quantity_name(Quantity::kBandwidth), "bandwidth");
  EXPECT_EQ(quantity_name(Quantity::kSize), "size");
  EXPECT_EQ(quantity_name(Quantity::kPower), "power");
  EXPECT_EQ(quantity_name(Quantity::kEnergy), "energy");
  EXPECT_EQ(quantity_name(Quantity::kEnergyPerByte), "energy per byte");
  EXPECT_EQ(quantity_name(Quantity::kNumber), "number");
}

}  // namespace
}  // namespace socsim::config
