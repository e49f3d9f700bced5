#include "sim/config/config_error.h"

#include <cerrno>
#include <cstring>
#include <utility>

namespace socsim::config {

std::string errno_reason() {
  const int e = errno;
  return e == 0 ? std::string() : std::string(" (") + std::strerror(e) + ")";
}

std::string format_config_error(const SourceLocation& loc, const std::string& key,
                                const std::string& message) {
  std::string out = loc.file;
  if (loc.line > 0) {
    // Appended piecewise: `":" + std::to_string(...)` trips a GCC 12 -Wrestrict false positive
    // at -O2 and above.
    out += ':';
    out += std::to_string(loc.line);
  }
  // An unnamed source (rare: load_string with an empty name) should not leave a dangling ": ".
  if (!out.empty()) out += ": ";
  if (!key.empty()) out += key + ": ";
  // A message quotes what was read (a value, a line): a one-line 1 MB file given as --soc, or a
  // binary file, would be echoed whole. Keep the start, say how much was left out.
  constexpr std::size_t kMaxMessage = 2000;
  if (message.size() > kMaxMessage) {
    out.append(message, 0, kMaxMessage);
    out += " ... (" + std::to_string(message.size() - kMaxMessage) + " more bytes of the message left out)";
  } else {
    out += message;
  }
  return out;
}

ConfigError::ConfigError(SourceLocation loc, std::string key, std::string message)
    : std::runtime_error(format_config_error(loc, key, message)),
      location_(std::move(loc)),
      key_(std::move(key)),
      message_(std::move(message)) {}

}  // namespace socsim::config
