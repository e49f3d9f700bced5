#pragma once
// The commands claims can invoke, and a cache over them. Many claims share one simulation (a
// ratio's denominator, several metrics of one run), so an invocation is computed once per
// validate run, keyed by the command and its exact argv. The table is injected so that tests
// can count calls and fake results without running the simulator.
#include <cstddef>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace socsim::validation {

using CommandFn = std::function<nlohmann::ordered_json(const std::vector<std::string>&)>;
using CommandTable = std::map<std::string, CommandFn>;  // "run" -> run_to_json, ...

// A command that could not produce a result: unknown to the table, or it threw.
class CommandFailure : public std::runtime_error {
 public:
  CommandFailure(const std::string& what, bool bad_input) : std::runtime_error(what), bad_input_(bad_input) {}
  // The command rejected its arguments (what would be exit 2), as opposed to an internal error.
  bool bad_input() const { return bad_input_; }

 private:
  bool bad_input_;
};

class CommandCache {
 public:
  explicit CommandCache(CommandTable table);

  // The JSON result of `command args...`. Throws CommandFailure naming the command line and the
  // reason; failures are cached too, so a bad invocation shared by claims is tried once.
  const nlohmann::ordered_json& call(const std::string& command, const std::vector<std::string>& args);

  std::size_t invocations() const { return invocations_; }  // calls that reached the table

 private:
  using Outcome = std::variant<nlohmann::ordered_json, std::string>;  // result or failure message

  CommandTable table_;
  std::map<std::vector<std::string>, Outcome> cache_;  // key: {command, args...}
  std::size_t invocations_ = 0;
};

// "run --soc snapdragon-8gen3 --prompt 8", for messages.
std::string command_line(const std::string& command, const std::vector<std::string>& args);

}  // namespace socsim::validation
