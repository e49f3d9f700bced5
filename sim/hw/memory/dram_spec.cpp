#include "sim/hw/memory/dram_spec.h"

#include <fmt/format.h>

#include "sim/config/config_error.h"

namespace socsim::hw {

using config::Quantity;

DramSpec parse_dram_spec(const config::Section& s) {
  DramSpec d;
  d.peak_bandwidth = s.positive_quantity("peak", Quantity::kBandwidth);
  d.concurrency_efficiency = s.number_list("concurrency_efficiency", "[1.0, 0.882] (the share of the peak one, two, ... masters reach)");
  if (d.concurrency_efficiency.empty()) {
    throw config::ConfigError(s.location_of("concurrency_efficiency"), s.path() + ".concurrency_efficiency",
                              "expected at least one value");
  }
  for (double e : d.concurrency_efficiency) {
    if (!(e > 0.0 && e <= 1.0)) {
      throw config::ConfigError(s.location_of("concurrency_efficiency"), s.path() + ".concurrency_efficiency",
                                "every value must be in (0, 1], got " + std::to_string(e));
    }
  }
  // Masters added to the DRAM lose efficiency (bank conflicts, read/write turnarounds): a share that
  // rose with more masters would make two streams together faster than the peak model allows.
  for (std::size_t i = 1; i < d.concurrency_efficiency.size(); ++i) {
    if (d.concurrency_efficiency[i] > d.concurrency_efficiency[i - 1]) {
      throw config::ConfigError(s.location_of("concurrency_efficiency"), s.path() + ".concurrency_efficiency",
                                fmt::format("must not rise with more masters (the share of the peak {} masters reach, {}, is above {}'s, {})", i + 1,
                                            d.concurrency_efficiency[i], i, d.concurrency_efficiency[i - 1]));
    }
  }
  d.capacity_bytes = static_cast<std::uint64_t>(s.positive_quantity("capacity", Quantity::kSize));
  return d;
}

}  // namespace socsim::hw
