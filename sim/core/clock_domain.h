#pragma once
// A clock domain converts a unit's cycles to simulated time and back. Units run at their own
// frequency (NPU ~1 GHz, CPU cores 2-3.3 GHz), so cycle counts are only meaningful with the
// domain they were counted in.
#include <cstdint>
#include <string>

#include "sim/core/time.h"

namespace socsim {

class ClockDomain {
 public:
  // frequency_hz must be a positive integer number of hertz (sub-hertz precision is meaningless
  // for a SoC clock and keeps the conversion exact).
  ClockDomain(std::string name, std::uint64_t frequency_hz);

  const std::string& name() const { return name_; }
  std::uint64_t frequency_hz() const { return frequency_hz_; }

  // Time taken by `cycles` cycles, rounded UP to the next picosecond: a cycle is never free.
  // Exact: computed in 128-bit integer arithmetic as ceil(cycles * 1e12 / f).
  Tick cycles_to_ticks(std::uint64_t cycles) const;

  // Whole cycles completed in `ticks`, rounded DOWN (a partial cycle has not completed).
  std::uint64_t ticks_to_cycles(Tick ticks) const;

  // The first cycle edge at or after `t` (edges at multiples of the period from time 0).
  Tick next_edge(Tick t) const;

 private:
  std::string name_;
  std::uint64_t frequency_hz_;
};

}  // namespace socsim
