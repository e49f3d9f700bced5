#pragma once
// A sweep axis of files (soc, model, workload) that lists one file twice, as an id and as a path
// or as two paths to it, would run every combination with it twice for the same numbers: refused
// at the second value's line, as a value listed twice in another spelling is. So are two `runs:`
// cases whose settings differ only in how they name their files.
#include "sim/sweep/sweep_spec.h"

namespace socsim::cli {

// Throws config::ConfigError naming both values and the file. Values that name no file are left
// to the runs' own checks.
void check_file_axes(const sweep::SweepSpec& spec);

}  // namespace socsim::cli
