#pragma once
// Shared by the fuzz targets: the input as text, and the rule every parser must keep. Bad input
// is config::ConfigError (exit 2 with file, line and key); anything else escaping a parser (a
// std::out_of_range, a yaml-cpp or nlohmann exception, a crash) is a bug libFuzzer reports.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace socsim::fuzz {

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// For parsers that take a path: the input written to one file per process and target (named by
// `suffix`), rewritten for every input.
// The file is removed when the process exits normally (scripts/fuzz.sh also runs the targets in
// a temporary folder of their own, for the runs that end in a crash).
inline std::filesystem::path as_file(const std::uint8_t* data, std::size_t size, const std::string& suffix) {
  struct RemovedAtExit {
    std::filesystem::path path;
    ~RemovedAtExit() {
      std::error_code ec;
      std::filesystem::remove(path, ec);
    }
  };
  static const RemovedAtExit holder{std::filesystem::temp_directory_path() /
                                    ("socsim_fuzz_" + std::to_string(::getpid()) + suffix)};
  const std::filesystem::path& file = holder.path;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return file;
}

}  // namespace socsim::fuzz
