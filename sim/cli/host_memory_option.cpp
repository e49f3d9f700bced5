#include "sim/cli/host_memory_option.h"

#include <cmath>
#include <stdexcept>

#include "sim/config/config_error.h"
#include "sim/config/units.h"
#include "sim/core/host_memory.h"

namespace socsim::cli {

std::uint64_t host_memory_limit(const std::string& text) {
  if (text.empty()) return usable_memory_bytes() / 2;  // a container's or job's limit when lower than the machine
  if (text == "0") return 0;
  double bytes = 0;
  try {
    bytes = config::parse_quantity(text, config::Quantity::kSize);
  } catch (const std::invalid_argument& e) {
    throw config::ConfigError({"command line", 0, 0}, "--max-host-memory", e.what());
  }
  if (bytes >= 18446744073709551616.0) {  // 2^64
    throw config::ConfigError({"command line", 0, 0}, "--max-host-memory", "must be less than 16 EiB (a 64-bit byte count; 0 for no limit), got " + text);
  }
  if (!(bytes >= 1 << 20)) {
    throw config::ConfigError({"command line", 0, 0}, "--max-host-memory", "must be at least 1 MiB (or 0 for no limit), got " + text);
  }
  return static_cast<std::uint64_t>(bytes);
}

}  // namespace socsim::cli
