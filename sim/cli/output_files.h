#pragma once
// Output files gathered in memory and written together at the end of a command, so a command that
// fails part-way writes nothing (contract: nothing is written on bad input).
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "sim/config/config_tree.h"

namespace socsim::cli {

// Throws config::ConfigError naming `option` when `path` cannot take an output, checked before a
// command's work so a minutes-long run does not fail only at its end: a file path (`folder`
// false) that is an existing folder, a folder path that is an existing file, or a path under an
// existing file. (What only writing can tell, a full disk or a read-only folder, write_all()
// reports, still leaving nothing partial.)
void check_output_path(const std::string& option, const std::filesystem::path& path, bool folder);

// Throws config::ConfigError naming `option` when `path` steps out of a folder that does not exist
// ("a/missing/../x.json"): making the output's missing folders would leave that one behind. (Part
// of check_output_path; `given` is the path as the user wrote it, for the message.)
void check_no_missing_folder_stepped_out(const std::string& option, const std::filesystem::path& given, const std::filesystem::path& path);

// Throws config::ConfigError naming `option` when one of the files `names` that a command writes
// into `dir` exists as a folder ("the <whose> <name> cannot be written there"): its write would
// fail only after the command's work.
void check_outputs_not_folders(const std::string& option, const std::filesystem::path& dir, std::initializer_list<const char*> names,
                               const std::string& whose);

// An input of a command: the option that named it and the file it resolved to.
struct NamedInput {
  std::string option;
  std::filesystem::path path;
};
// `inputs` plus the files `tree` (read for `option`, e.g. "--soc") includes, each named
// "<option>'s include": an output over an included SoC file replaced it with the report.
std::vector<NamedInput> with_included(std::vector<NamedInput> inputs, const std::string& option, const config::ConfigTree& tree);
// Throws config::ConfigError naming `option` when the output `path` is the same file as one of
// `inputs` (by identity: another spelling, a link), which the write would replace with the report.
void check_output_not_input(const std::string& option, const std::filesystem::path& path, const std::vector<NamedInput>& inputs);
// Throws config::ConfigError naming `option` when two outputs of one command are the same path
// (--json inside --report-dir under one of its names): the second write would replace the first.
// Paths that do not exist yet are compared as written, made absolute and normalized.
void check_outputs_differ(const std::string& option, const std::filesystem::path& path, const std::string& other_option,
                          const std::filesystem::path& other);

class OutputFiles {
 public:
  void add(std::filesystem::path path, std::string content) { files_.emplace_back(std::move(path), std::move(content)); }
  // Creates parent folders; writes every file to a temporary beside it, then renames them over
  // their targets (atomic), so a failure leaves no partial file and earlier outputs intact; throws
  // config::ConfigError (exit 2) naming a path it cannot write.
  void write_all() const;
  std::vector<std::filesystem::path> paths() const;
  std::uintmax_t bytes() const;  // what write_all() writes, all files together

 private:
  std::vector<std::pair<std::filesystem::path, std::string>> files_;
};

}  // namespace socsim::cli
