#pragma once
// The one exception type of the configuration subsystem. Every configuration mistake must point
// the user at the exact place to fix (file, line, dotted key), so the location and key travel
// with the error instead of being baked only into a string.
#include <stdexcept>
#include <string>
#include <string_view>

namespace socsim::config {

struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based; 0 = unknown (e.g. values given with --set)
  int column = 0;  // 1-based; 0 = unknown
};

// Where `--set key=value` overrides are located (ConfigTree::apply_override).
inline constexpr std::string_view kCommandLineSetFile = "--set";

class ConfigError : public std::runtime_error {
 public:
  ConfigError(SourceLocation loc, std::string key, std::string message);

  const SourceLocation& location() const { return location_; }
  const std::string& key() const { return key_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation location_;
  std::string key_;
  std::string message_;
};

// " (<strerror(errno)>)" after a failed open or read, or "" when errno is 0: why a file could not
// be read (permission, a directory, a missing file), for the message. Call it before anything else
// can change errno.
std::string errno_reason();

// "file:line: key: message" with the optional parts left out; also used for warnings/logs.
std::string format_config_error(const SourceLocation& loc, const std::string& key,
                                const std::string& message);

}  // namespace socsim::config
