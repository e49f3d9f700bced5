#include "sim/validation/command_args.h"

#include <string_view>

#include "sim/config/config_error.h"

namespace socsim::validation {

namespace {

// Section::string() accepts any scalar and rejects maps, lists and empty values with
// "expected a string, got ...". Here numbers and booleans are just as valid, so the expectation
// is restated; the location, key and the "got ..." part are kept.
std::string scalar(const config::Section& block, const std::string& key) {
  try {
    return block.string(key);
  } catch (const config::ConfigError& e) {
    constexpr std::string_view kPrefix = "expected a string";
    std::string message = e.message();
    if (message.rfind(kPrefix, 0) == 0) {
      message = "expected a scalar (number, string or true/false)" + message.substr(kPrefix.size());
    }
    throw config::ConfigError(e.location(), e.key(), message);
  }
}

}  // namespace

std::vector<std::string> command_args(const config::Section& block) {
  std::vector<std::string> args;
  for (const std::string& key : block.keys()) {
    if (key == "set") {
      const config::Section overrides = block.child("set");
      for (const std::string& name : overrides.keys()) {
        args.push_back("--set");
        args.push_back(name + "=" + scalar(overrides, name));
      }
      continue;
    }
    // A key is an option's name: "json=f.json" or "-x" would smuggle another option (or a value)
    // past the checks here, to be dropped or written in silence.
    if (key.empty() || key.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos || key.front() == '-') {
      throw config::ConfigError(block.location_of(key), block.path().empty() ? key : block.path() + "." + key,
                                "a claim's command option is the option's name without '--' (lower-case letters, digits and "
                                "'-'), its value the key's value");
    }
    if (key == "json" || key == "report-dir") {
      // validate reads the command's report in memory: the option would be dropped in silence.
      throw config::ConfigError(block.location_of(key), block.path().empty() ? key : block.path() + "." + key,
                                "a claim's command writes no files (validate reads its report directly); run the command "
                                "yourself for its outputs");
    }
    args.push_back("--" + key);
    args.push_back(scalar(block, key));
  }
  return args;
}

}  // namespace socsim::validation
