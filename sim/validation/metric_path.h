#pragma once
// Reads a claim's metric (a dotted path such as `units.npu.busy_ms`) out of a command's JSON.
// A wrong path is the most common mistake in a claims file, so the error says how far the path
// got and which keys were there instead.
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace socsim::validation {

class MetricError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The number at `path`. Path segments are object keys; a segment that is a decimal index
// steps into a list. Throws MetricError when a segment is missing ("metric 'units.npu.busy_ms':
// no key 'npu' in 'units' (available: cpu, dram)") or the value is not a finite number.
double lookup_metric(const nlohmann::ordered_json& result, const std::string& path);

}  // namespace socsim::validation
