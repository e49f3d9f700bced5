#include "sim/core/clock_domain.h"

#include <stdexcept>

namespace socsim {

namespace {
using u128 = unsigned __int128;
constexpr u128 kPsPerSecond = 1'000'000'000'000ULL;

Tick checked_tick(u128 v) {
  if (v > static_cast<u128>(kTickMax)) throw TimeOverflow("clock conversion overflows 64-bit picoseconds");
  return static_cast<Tick>(v);
}
}  // namespace

ClockDomain::ClockDomain(std::string name, std::uint64_t frequency_hz)
    : name_(std::move(name)), frequency_hz_(frequency_hz) {
  if (frequency_hz_ == 0) throw std::invalid_argument("clock domain '" + name_ + "': frequency must be > 0");
}

Tick ClockDomain::cycles_to_ticks(std::uint64_t cycles) const {
  const u128 num = static_cast<u128>(cycles) * kPsPerSecond;
  return checked_tick((num + frequency_hz_ - 1) / frequency_hz_);
}

std::uint64_t ClockDomain::ticks_to_cycles(Tick ticks) const {
  return static_cast<std::uint64_t>(static_cast<u128>(ticks) * frequency_hz_ / kPsPerSecond);
}

Tick ClockDomain::next_edge(Tick t) const {
  // Edge k is at ceil(k * 1e12 / f). Find the smallest k whose edge is >= t.
  const std::uint64_t k = ticks_to_cycles(t);
  Tick edge = cycles_to_ticks(k);
  if (edge < t) edge = cycles_to_ticks(k + 1);
  return edge;
}

}  // namespace socsim
