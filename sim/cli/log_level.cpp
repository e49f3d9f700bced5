#include "sim/cli/log_level.h"

#include <spdlog/spdlog.h>

#include "sim/config/config_error.h"

namespace socsim::cli {

void set_log_level(const std::string& name) {
  static const std::pair<const char*, spdlog::level::level_enum> kLevels[] = {
      {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug}, {"info", spdlog::level::info},
      {"warn", spdlog::level::warn},   {"error", spdlog::level::err},   {"off", spdlog::level::off}};
  for (const auto& [n, level] : kLevels) {
    if (name == n) {
      spdlog::set_level(level);
      return;
    }
  }
  throw config::ConfigError({"command line", 0, 0}, "--log-level",
                            "expected one of trace|debug|info|warn|error|off, got '" + name + "'");
}

}  // namespace socsim::cli
