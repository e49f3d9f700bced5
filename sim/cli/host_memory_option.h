#pragma once
// --max-host-memory: how much host memory a simulation may hold before it stops (exit 2).
#include <cstdint>
#include <string>

namespace socsim::cli {

// `text` as a size ("4GiB"; "0" = no limit); empty = half the machine's physical memory (no limit
// when the machine's memory is unknown). Bad text throws config::ConfigError naming the option.
std::uint64_t host_memory_limit(const std::string& text);

}  // namespace socsim::cli
