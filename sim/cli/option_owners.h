#pragma once
// The run's options all read, or an error that says whose options the unread ones are.
#include <string>

#include "sim/config/config_tree.h"

namespace socsim::cli {

// tree.check_all_consumed(), with an unknown key that belongs to another system (a section such
// as tts.* under npu-only, or npu-only's npu.shape_policy under npu-naive) named as that system's
// option instead of "unknown key; expected one of ...".
void check_all_options_read(const config::ConfigTree& tree, const std::string& system);

}  // namespace socsim::cli
