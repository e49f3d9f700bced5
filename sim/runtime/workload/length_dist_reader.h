#pragma once
// Reads one length key of a workload file (`prompt: 512` or `prompt: {uniform: [a, b]}`, ...)
// into a LengthDist, checking every value against what the key allows.
#include <cstdint>
#include <optional>
#include <string_view>

#include "sim/config/config_tree.h"
#include "sim/runtime/workload/workload.h"

namespace socsim::runtime {

struct LengthLimits {
  std::uint64_t min, max;  // inclusive, in tokens
};

// Throws config::ConfigError for a bad value. Returns nullopt when `key` is a map naming none of
// uniform/normal/choices: the caller then runs check_all_consumed() first, so a typo such as
// `unifrom` is reported as an unknown key with "did you mean 'uniform'?", and only a map with no
// key at all gets the plain "missing distribution" error.
std::optional<LengthDist> read_length_dist(const config::Section& parent, std::string_view key,
                                           LengthLimits limits);

// The "missing distribution" error for `key` of `parent`.
[[noreturn]] void throw_missing_distribution(const config::Section& parent, std::string_view key);

}  // namespace socsim::runtime
