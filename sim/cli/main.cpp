// socsim: command-line front end. Dispatches to one subcommand; maps failures to the exit codes of
// the contract (DESIGN.md 2): 0 success, 2 bad input (file:line: key: message), 1 internal error.
#include <sys/resource.h>

#include <new>
#include <stdexcept>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "sim/cli/program_options.h"
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "kernels/tensor/non_finite.h"
#include "sim/cli/command.h"
#include "sim/cli/log_level.h"
#include "sim/config/config_error.h"
#include "sim/config/longest_time.h"
#include "sim/core/host_allocator.h"
#include "sim/core/time.h"
#include "sim/hw/hardware_limit_error.h"
#include "sim/sweep/interrupt_guard.h"
#include "sim/cli/distinct_warnings.h"

namespace po = boost::program_options;
using socsim::cli::commands;

namespace {

// The process's address-space limit, for a message: "ulimit -v 4000000 KiB" or "no ulimit -v".
std::string memory_limits_text() {
  struct rlimit rl {};
  if (::getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return "no ulimit -v";
  return "ulimit -v " + std::to_string(static_cast<unsigned long long>(rl.rlim_cur) / 1024) + " KiB";
}

}  // namespace

namespace {

void print_usage(std::ostream& os) {
  os << "socsim " << SOCSIM_VERSION << ": a cycle-approximate simulator of mobile SoCs running LLM inference\n\n"
     << "usage: socsim [--log-level LEVEL] <command> [options]\n"
     << "       socsim <command> --help\n\ncommands:\n";
  for (const auto& c : commands()) os << "  " << c.name << std::string(12 - std::string(c.name).size(), ' ') << c.summary << "\n";
  os << "\nglobal options:\n"
     << "  -h [ --help ]         this message\n"
     << "  --version             print the version\n"
     << "  --log-level LEVEL     trace|debug|info|warn|error|off (default warn)\n";
}

int dispatch(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // Global options come before the command name.
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      print_usage(std::cout);
      return 0;
    }
    if (a == "--version") {
      std::cout << "socsim " << SOCSIM_VERSION << "\n";
      return 0;
    }
    if (a == "--log-level" || a.rfind("--log-level=", 0) == 0) {
      std::string level;
      if (a == "--log-level") {
        if (i + 1 >= args.size()) throw socsim::config::ConfigError({"command line", 0, 0}, "--log-level", "expected a level");
        level = args[++i];
      } else {
        level = a.substr(std::string("--log-level=").size());
      }
      socsim::cli::set_log_level(level);
      continue;
    }
    break;
  }
  if (i >= args.size()) {
    print_usage(std::cerr);
    return 2;
  }
  const std::string name = args[i];
  for (const auto& c : commands()) {
    if (name == c.name) return c.run(std::vector<std::string>(args.begin() + static_cast<long>(i) + 1, args.end()));
  }
  std::string known;
  for (const auto& c : commands()) known += (known.empty() ? "" : ", ") + std::string(c.name);
  throw socsim::config::ConfigError({"command line", 0, 0}, name, "unknown command (known: " + known + ")");
}

}  // namespace

int main(int argc, char** argv) {
  socsim::keep_freed_memory_for_reuse();
  // Logs go to stderr: stdout carries the command's output (summaries, tables) only.
  spdlog::set_default_logger(spdlog::stderr_color_mt("socsim"));
  spdlog::set_level(spdlog::level::warn);
  spdlog::set_pattern("[%l] %v");
  // After the pattern (the filter forwards to the sinks it wraps, which format), before any thread.
  socsim::cli::install_distinct_warnings_filter();
  try {
    const int rc = dispatch(argc, argv);
    // A sweep stopped by a signal ends by that signal, now that its journal is closed and its lock
    // released: a calling script sees an interrupted child and stops as well.
    if (const int sig = socsim::sweep::InterruptGuard::received(); sig != 0 && rc == 128 + sig) socsim::sweep::die_by_signal(sig);
    // A summary or table that could not be written (stdout on a full disk, or closed) is not a
    // success: a script reading it would take nothing for the answer (it exited 0).
    std::cout.flush();
    if (!std::cout && rc == 0) {
      std::cerr << "error: standard output could not be written (a full disk, or a closed pipe or descriptor): the command's output is "
                   "incomplete\n";
      return 2;
    }
    return rc;
  } catch (const socsim::config::ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const socsim::hw::HardwareLimitError& e) {
    std::cerr << "error: " << e.describe("--set " + e.key() + "=...") << "\n";
    return 2;
  } catch (const po::error& e) {
    std::cerr << "error: command line: " << e.what() << "\n";
    return 2;
  } catch (const socsim::TimeOverflow& e) {
    // A duration past 64 bits comes from the inputs (a parameter or a request far outside what a
    // phone does), not from a bug: bad input. Other overflows are internal errors (below).
    std::cerr << "error: the inputs ask for a duration or size socsim cannot represent (64-bit picoseconds: 213 days; 64-bit bytes): "
              << e.what() << socsim::config::longest_time_hint() << "\n";
    return 2;
  } catch (const socsim::kernels::NonFiniteData& e) {
    // Data a kernel cannot represent (functional mode names the layer where it catches it first).
    std::cerr << "error: functional mode: " << e.what() << ": " << socsim::kernels::kNonFiniteDataHint << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    // The host could not give the memory the inputs ask for: a process limit (ulimit -v) below
    // what --max-host-memory's check allows, or a size no estimate caught. Bad input, said so.
    std::cerr << "error: out of host memory: the inputs ask for more memory than this process can have (" << memory_limits_text()
              << "); ask for less (a run's prompt, decode, batch or layers; a calibration's sequences or tokens; a smaller file) or raise the process's limit\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return 1;
  }
}
