#pragma once
// Shared by the fuzz targets: the input as text, and the rule every parser must keep. Bad input
// is config::ConfigError (exit 2 with file, line and key); anything else escaping a parser (a
// std::out_of_range, a yaml-cpp or nlohmann exception, a crash) is a bug libFuzzer reports.
#include <cstddef>
#include <cstdint>
#include <string>

namespace socsim::fuzz {

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace socsim::fuzz
