#pragma once
// Strict parsing of physical quantities written with units, SST-style ("68 GB/s", "400 us").
// A bare number is never accepted for a dimensioned quantity: "68" could mean GB/s or MB/s, and a
// silently wrong bandwidth invalidates every result downstream.
#include <cstdint>
#include <string>
#include <string_view>

namespace socsim::config {

using Tick = std::uint64_t;  // picoseconds; same type as socsim::Tick (sim/core/time.h)

enum class Quantity { kTime, kFrequency, kBandwidth, kSize, kPower, kEnergy, kEnergyPerByte, kNumber };

// Returns the value in SI base units: seconds, Hz, bytes/s, bytes, W, J, J/byte (kNumber: as is).
// Throws std::invalid_argument saying what was expected, e.g.
//   expected a bandwidth such as "68 GB/s" (units: B/s kB/s ...), got "abc"
double parse_quantity(std::string_view text, Quantity q);

// A time in integer picoseconds, computed from the decimal digits (not via double), so
// "1.5 ns" is exactly 1500. Rounds to the nearest ps; rejects negative values and overflow.
Tick parse_time_ticks(std::string_view text);

// Sizes become 64-bit byte counts: beyond 2^64 the conversion is undefined (it gave "a TCM of
// 0 B" for 1e30 GiB), and a fraction of a byte would be dropped without a word. Throws
// std::invalid_argument ("must be less than 16 EiB (a 64-bit byte count), got <text>" or
// "expected a whole number of bytes, got <text>") for such a value of parse_quantity(text, kSize).
void check_byte_count(double bytes, std::string_view text);

// "time", "frequency", "bandwidth", "size", "power", "energy", "energy per byte", "number".
std::string_view quantity_name(Quantity q);

}  // namespace socsim::config
