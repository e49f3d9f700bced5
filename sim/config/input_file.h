#pragma once
// What an input file must be before it is read: not a folder, not a device or socket (read without
// end: /dev/zero), not a FIFO unless the reader takes pipes (one without a writer blocks), and a
// regular file within the bytes its kind may have (a huge file is read whole into memory). Shared
// by every reader of a named input: configuration and model files, sweep journals and results,
// serve traces.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace socsim::config {

struct InputFileRule {
  std::string what;             // "a configuration", "a sweep journal": the message's noun
  std::uintmax_t max_bytes = 0;  // for a regular file; 0 = no cap
  bool pipes = false;            // a FIFO or pipe is read (the reader counts its bytes itself)
};

// Why `path` cannot be read as `rule.what`, as a phrase after the file's name ("is a folder, not a
// sweep journal", "is 70 MiB, more than the 64 MiB a configuration may have"); nullopt when it can
// (a path that does not exist is left to the reader's own "cannot open").
std::optional<std::string> input_file_problem(const std::filesystem::path& path, const InputFileRule& rule);

}  // namespace socsim::config
