#pragma once
// One draw from a length distribution (the semantics are documented in workload.h).
#include <cstdint>

#include "sim/runtime/workload/portable_rng.h"
#include "sim/runtime/workload/workload.h"

namespace socsim::runtime {

std::uint64_t draw_length(const LengthDist& dist, PortableRng& rng);

}  // namespace socsim::runtime
