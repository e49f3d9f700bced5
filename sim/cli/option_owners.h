#pragma once
// The run's options all read, or an error that says whose options the unread ones are.
#include <string>

#include "sim/config/config_tree.h"

namespace socsim::cli {

// tree.check_all_consumed(), with an unknown key that belongs to another system (a section such
// as tts.* under npu-only, or npu-only's npu.shape_policy under npu-naive) named as that system's
// option instead of "unknown key; expected one of ...".
void check_all_options_read(const config::ConfigTree& tree, const std::string& system);

// shadowAttn's keys of the scales' buckets that a mode does not read, refused: scale_centre in
// timing mode (it draws the scales around the grid's centre), scale_spread in functional mode
// measuring every layer's scales of its one request (`measures_every_scale`; a workload's later
// requests and layers past --functional-layers draw theirs with the spread).
void refuse_unread_scale_keys(config::Section& root, const std::string& system, bool functional, bool measures_every_scale);

}  // namespace socsim::cli
