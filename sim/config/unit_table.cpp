#include "sim/config/unit_table.h"

#include <array>
#include <cmath>

namespace socsim::config::detail {
namespace {

constexpr double kKi = 1024.0;
constexpr double kMi = kKi * 1024.0;
constexpr double kGi = kMi * 1024.0;

// Each table is ordered from the smallest unit to the largest; the formatter relies on it.
constexpr std::array kTimeUnits{
    UnitDef{"ps", -12, 1.0, true}, UnitDef{"ns", -9, 1.0, true}, UnitDef{"us", -6, 1.0, true},
    UnitDef{"ms", -3, 1.0, true},  UnitDef{"s", 0, 1.0, true},
};
constexpr std::array kFrequencyUnits{
    UnitDef{"Hz", 0, 1.0, true}, UnitDef{"kHz", 3, 1.0, true}, UnitDef{"MHz", 6, 1.0, true},
    UnitDef{"GHz", 9, 1.0, true},
};
constexpr std::array kBandwidthUnits{
    UnitDef{"B/s", 0, 1.0, true},    UnitDef{"kB/s", 3, 1.0, true},
    UnitDef{"MB/s", 6, 1.0, true},   UnitDef{"GB/s", 9, 1.0, true},
    UnitDef{"TB/s", 12, 1.0, true},  UnitDef{"KiB/s", 0, kKi, true},
    UnitDef{"MiB/s", 0, kMi, true},  UnitDef{"GiB/s", 0, kGi, true},
};
constexpr std::array kSizeUnits{
    UnitDef{"B", 0, 1.0, true},   UnitDef{"kB", 3, 1.0, true},  UnitDef{"MB", 6, 1.0, true},
    UnitDef{"GB", 9, 1.0, true},  UnitDef{"KiB", 0, kKi, true}, UnitDef{"MiB", 0, kMi, true},
    UnitDef{"GiB", 0, kGi, true},
    // Read (a what-if of a terabyte of DRAM or storage), not printed: messages keep their units.
    UnitDef{"TB", 12, 1.0, false}, UnitDef{"TiB", 0, kGi * kKi, false},
    // Up to the 64-bit byte count's 16 EiB, the bound a too-large size is refused with.
    UnitDef{"PB", 15, 1.0, false}, UnitDef{"PiB", 0, kGi * kMi, false},
    UnitDef{"EB", 18, 1.0, false}, UnitDef{"EiB", 0, kGi * kGi, false},
};
constexpr std::array kPowerUnits{UnitDef{"mW", -3, 1.0, true}, UnitDef{"W", 0, 1.0, true}};
constexpr std::array kEnergyUnits{
    UnitDef{"pJ", -12, 1.0, true}, UnitDef{"nJ", -9, 1.0, true}, UnitDef{"uJ", -6, 1.0, true},
    UnitDef{"mJ", -3, 1.0, true},  UnitDef{"J", 0, 1.0, true},
};
// pJ/bit is accepted because datasheets quote it, but messages use per-byte units only.
constexpr std::array kEnergyPerByteUnits{
    UnitDef{"pJ/B", -12, 1.0, true}, UnitDef{"nJ/B", -9, 1.0, true},
    UnitDef{"pJ/bit", -12, 8.0, false},
};

}  // namespace

std::span<const UnitDef> units_for(Quantity q) {
  switch (q) {
    case Quantity::kTime: return kTimeUnits;
    case Quantity::kFrequency: return kFrequencyUnits;
    case Quantity::kBandwidth: return kBandwidthUnits;
    case Quantity::kSize: return kSizeUnits;
    case Quantity::kPower: return kPowerUnits;
    case Quantity::kEnergy: return kEnergyUnits;
    case Quantity::kEnergyPerByte: return kEnergyPerByteUnits;
    case Quantity::kNumber: return {};
  }
  return {};
}

std::string_view example_for(Quantity q) {
  switch (q) {
    case Quantity::kTime: return "400 us";
    case Quantity::kFrequency: return "2.4 GHz";
    case Quantity::kBandwidth: return "68 GB/s";
    case Quantity::kSize: return "8 GiB";
    case Quantity::kPower: return "500 mW";
    case Quantity::kEnergy: return "10 pJ";
    case Quantity::kEnergyPerByte: return "4 pJ/B";
    case Quantity::kNumber: return "1.5";
  }
  return "";
}

std::string_view article_for(Quantity q) {
  return (q == Quantity::kEnergy || q == Quantity::kEnergyPerByte) ? "an" : "a";
}

double multiplier(const UnitDef& u) { return std::pow(10.0, u.decimal_exponent) * u.factor; }

}  // namespace socsim::config::detail
