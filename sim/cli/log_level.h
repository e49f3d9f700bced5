#pragma once
#include <string>

namespace socsim::cli {
// Sets spdlog's level from a name; throws config::ConfigError on an unknown name.
void set_log_level(const std::string& name);
}  // namespace socsim::cli
