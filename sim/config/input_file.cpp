#include "sim/config/input_file.h"

namespace socsim::config {

std::optional<std::string> input_file_problem(const std::filesystem::path& path, const InputFileRule& rule) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) return std::nullopt;
  if (fs::is_directory(status)) return "is a folder, not " + rule.what;
  if (fs::is_fifo(status) && rule.pipes) return std::nullopt;
  if (!fs::is_regular_file(status)) {
    return rule.pipes ? "is a device or socket, not " + rule.what + " (a pipe or FIFO is read as one)"
                      : "is not a regular file (a FIFO, device or socket), not " + rule.what;
  }
  const auto size = fs::file_size(path, ec);
  if (!ec && rule.max_bytes > 0 && size > rule.max_bytes) {
    return "is " + std::to_string(size >> 20) + " MiB, more than the " + std::to_string(rule.max_bytes >> 20) + " MiB " + rule.what + " may have";
  }
  return std::nullopt;
}

}  // namespace socsim::config
