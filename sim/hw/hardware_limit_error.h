#pragma once
// Work that the described hardware cannot hold: a kernel's tiles larger than the TCM, buffers
// beyond the NPU's address space. It is bad input (the SoC description or a --set what-if), so
// the CLI exits 2 naming the SoC key to change, never "internal error".
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/config/config_error.h"

namespace socsim::hw {

class HardwareLimitError : public std::invalid_argument {
 public:
  HardwareLimitError(std::string key, const std::string& message)
      : std::invalid_argument(key + ": " + message), key_(std::move(key)), message_(message) {}
  // The SoC file's dotted key that limits the work ("npu.tcm").
  const std::string& key() const { return key_; }
  const std::string& message() const { return message_; }
  // Where the SoC description sets the key (its file and line, or --set), once the layer that
  // holds the parsed SoC has added it (hw::locate_limit): the unit that throws does not know it.
  const std::optional<config::SourceLocation>& location() const { return location_; }
  void set_location(config::SourceLocation where) { location_ = std::move(where); }
  // What a user reads: "s.yaml:25: npu.tcm: <why> (change it in the SoC file or with --set
  // npu.tcm=...)"; `set_syntax` is how the caller's interface spells a setting ("--set npu.tcm=...").
  std::string describe(std::string_view set_syntax) const {
    const std::string hint = " (change it in the SoC file or with " + std::string(set_syntax) + ")";
    if (!location_) return "SoC: " + std::string(what()) + hint;
    return config::format_config_error(*location_, key_, message_) + hint;
  }

 private:
  std::string key_, message_;
  std::optional<config::SourceLocation> location_;
};

}  // namespace socsim::hw
