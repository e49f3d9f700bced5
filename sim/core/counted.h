#pragma once
// "1 request", "2 requests": a count and its noun as a sentence says them (summaries and
// messages read "1 requests" for a one-request workload).
#include <cstdint>
#include <string>
#include <string_view>

namespace socsim {

// `noun` is the singular; the plural adds an "s" (every noun socsim counts this way takes one).
inline std::string counted(std::uint64_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

}  // namespace socsim
