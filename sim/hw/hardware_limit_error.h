#pragma once
// Work that the described hardware cannot hold: a kernel's tiles larger than the TCM, buffers
// beyond the NPU's address space. It is bad input (the SoC description or a --set what-if), so
// the CLI exits 2 naming the SoC key to change, never "internal error".
#include <stdexcept>
#include <string>

namespace socsim::hw {

class HardwareLimitError : public std::invalid_argument {
 public:
  HardwareLimitError(std::string key, const std::string& message) : std::invalid_argument(key + ": " + message), key_(std::move(key)) {}
  // The SoC file's dotted key that limits the work ("npu.tcm").
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

}  // namespace socsim::hw
