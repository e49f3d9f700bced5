#include "sim/validation/command_cache.h"

#include <boost/program_options/errors.hpp>
#include <exception>
#include <utility>

#include "sim/config/config_error.h"

namespace socsim::validation {

std::string command_line(const std::string& command, const std::vector<std::string>& args) {
  std::string line = command;
  for (const auto& a : args) line += " " + a;
  return line;
}

CommandCache::CommandCache(CommandTable table) : table_(std::move(table)) {}

const nlohmann::ordered_json& CommandCache::call(const std::string& command, const std::vector<std::string>& args) {
  std::vector<std::string> key;
  key.reserve(args.size() + 1);
  key.push_back(command);
  key.insert(key.end(), args.begin(), args.end());

  auto it = cache_.find(key);
  if (it == cache_.end()) {
    Outcome outcome;
    const auto fn = table_.find(command);
    if (fn == table_.end() || !fn->second) {
      outcome.emplace<std::string>("'" + command + "' is not available in this build");
    } else {
      ++invocations_;
      // One claim's failure must not stop the others: every exception becomes a message.
      // Bad input is told apart from internal errors, as the exit codes of the command would.
      try {
        outcome.emplace<nlohmann::ordered_json>(fn->second(args));
      } catch (const config::ConfigError& e) {
        outcome.emplace<std::string>(std::string("bad input: ") + e.what());
      } catch (const boost::program_options::error& e) {  // e.g. a misspelt key: unrecognised option
        outcome.emplace<std::string>(std::string("bad input: ") + e.what());
      } catch (const std::exception& e) {
        outcome.emplace<std::string>(std::string("error: ") + e.what());
      } catch (...) {
        outcome.emplace<std::string>("error: unknown exception");
      }
    }
    it = cache_.emplace(std::move(key), std::move(outcome)).first;
  }
  if (const auto* failure = std::get_if<std::string>(&it->second)) {
    throw CommandFailure("`" + command_line(command, args) + "`: " + *failure, failure->rfind("bad input: ", 0) == 0);
  }
  return std::get<nlohmann::ordered_json>(it->second);
}

}  // namespace socsim::validation
