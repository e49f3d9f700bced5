#pragma once
// A subcommand of the `socsim` CLI. Each command parses its own options (Boost.Program_options)
// and returns the process exit code. Bad input is reported by throwing config::ConfigError
// (exit 2); anything else that escapes is an internal error (exit 1).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace socsim::cli {

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>& args);  // args after the command name
};

const std::vector<Command>& commands();

// In-process forms of the commands that produce a JSON result: the same options as on the
// command line, the result as the JSON the command would write with --json. `validate` and the
// sweep runner call these directly instead of spawning processes. Bad input throws
// config::ConfigError.
nlohmann::ordered_json run_to_json(const std::vector<std::string>& args);
nlohmann::ordered_json microbench_to_json(const std::vector<std::string>& args);
nlohmann::ordered_json serve_to_json(const std::vector<std::string>& args);

// Commands (one file each).
int run_command(const std::vector<std::string>& args);
int microbench_command(const std::vector<std::string>& args);
int validate_command(const std::vector<std::string>& args);
int bench_command(const std::vector<std::string>& args);
int sweep_command(const std::vector<std::string>& args);
int sweep_merge_command(const std::vector<std::string>& args);  // `socsim sweep merge`, called by sweep_command
int serve_command(const std::vector<std::string>& args);
int calibrate_command(const std::vector<std::string>& args);

}  // namespace socsim::cli
