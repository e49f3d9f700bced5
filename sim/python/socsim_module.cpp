// socsim from Python (pybind11): the CLI's in-process commands behind Python calls, so a result is
// the same report `socsim run ... --json` writes, from the same C++ core (no second implementation).
//
//   import socsim
//   r = socsim.run(soc="snapdragon-8gen3", model="llama-3-8b", system="hetero-tensor",
//                  prompt=1024, decode=64, set={"npu.tcm": "16MiB"})   # dict, as --json
//   rows = socsim.sweep("tcm-x-npu-freq", jobs=2)                       # list of dicts
//   pandas.DataFrame(rows)
//
// Keyword arguments become the command's options (`trace_detail="off"` -> `--trace-detail off`; True
// -> a bare flag; `set` a dict or a list of "key=value"). Bad input raises socsim.ConfigError (a
// ValueError) with the CLI's message (file:line: key: what was expected); a hardware limit names
// its SoC key; any other failure raises socsim.Error. The GIL is released while a simulation runs.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <stdlib.h>

#include <boost/program_options/errors.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "sim/cli/command.h"
#include "sim/config/config_error.h"
#include "sim/core/host_memory.h"
#include "sim/core/time.h"
#include "sim/hw/hardware_limit_error.h"
#include "sim/cli/distinct_warnings.h"

namespace py = pybind11;

namespace {

// Python value -> option text, as it would be typed on the command line.
std::string option_text(const py::handle& v) {
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>() ? "true" : "false";
  return py::str(v).cast<std::string>();
}

// The options of socsim's commands that take no value (dashed, as on the command line).
constexpr std::array<std::string_view, 4> kFlags = {"help", "dry-run", "reports", "resume"};

// kwargs -> ["--key", "value", ...]; `set` expands to one --set per entry.
std::vector<std::string> to_args_unchecked(const py::kwargs& kwargs);

// As to_args_unchecked, with a value that has no UTF-8 text (a lone surrogate) named as bad input
// rather than pybind11's "Unable to cast" internal error.
std::vector<std::string> to_args(const py::kwargs& kwargs) {
  try {
    auto args = to_args_unchecked(kwargs);
    // A NUL cut the value short in every C string it reached ("unknown id 'snapdragon-8gen3"
    // for a valid id followed by a NUL): refused, naming the argument.
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (args[i].find('\0') == std::string::npos) continue;
      const std::string& key = i > 0 && args[i - 1].rfind("--", 0) == 0 ? args[i - 1].substr(2) : std::string("arguments");
      throw socsim::config::ConfigError({"python", 0, 0}, key, "holds a NUL character ('\\x00'), which no value, path or id socsim reads can hold");
    }
    return args;
  } catch (const py::cast_error&) {
    throw socsim::config::ConfigError({"python", 0, 0}, "arguments", "a value is not text socsim can read (a str that is not UTF-8, such as a lone surrogate)");
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_UnicodeError)) throw;
    throw socsim::config::ConfigError({"python", 0, 0}, "arguments", "a value is not text socsim can read (a str that is not UTF-8, such as a lone surrogate)");
  }
}

std::vector<std::string> to_args_unchecked(const py::kwargs& kwargs) {
  std::vector<std::string> args;
  for (const auto& [k, v] : kwargs) {
    std::string key = k.cast<std::string>();
    if (v.is_none()) continue;
    if (key == "set") {
      // What each form holds, checked: str() of anything else made a setting of it (None became
      // "None", b"npu.tcm=1MiB" iterated as the numbers 110, 112, ...).
      const auto refuse = [](const std::string& what) { throw socsim::config::ConfigError({"python", 0, 0}, "set", what); };
      const char* forms = "a dict {'npu.tcm': '16MiB'}, one 'key=value' str or a list of them";
      if (py::isinstance<py::dict>(v)) {
        for (const auto& [sk, sv] : v.cast<py::dict>()) {
          if (!py::isinstance<py::str>(sk)) refuse("a key of the dict is " + py::repr(sk).cast<std::string>() + ": keys are dotted names such as 'npu.tcm'");
          if (sv.is_none()) refuse("set['" + sk.cast<std::string>() + "'] is None: give its value, e.g. '16MiB', 2 or True");
          args.push_back("--set");
          args.push_back(sk.cast<std::string>() + "=" + option_text(sv));
        }
      } else if (py::isinstance<py::str>(v)) {
        args.push_back("--set");  // one "key=value"
        args.push_back(v.cast<std::string>());
      } else if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
        for (const auto& item : v) {
          if (!py::isinstance<py::str>(item)) refuse(std::string("expected ") + forms + ", got an entry " + py::repr(item).cast<std::string>());
          args.push_back("--set");
          args.push_back(item.cast<std::string>());
        }
      } else {
        refuse(std::string("expected ") + forms + ", got " + py::repr(v).cast<std::string>());
      }
      continue;
    }
    for (char& c : key) {
      if (c == '_') c = '-';
    }
    if (py::isinstance<py::bool_>(v)) {
      // The CLI's flags (options without a value) are the only bools: elsewhere batch=False was
      // dropped without a word and prompt=True took the next option's value as its own.
      if (std::find(kFlags.begin(), kFlags.end(), key) == kFlags.end()) {
        throw socsim::config::ConfigError({"python", 0, 0}, k.cast<std::string>(),
                                          std::string("takes a value, not ") + (v.cast<bool>() ? "True" : "False") +
                                              " (only help, dry_run, reports and resume are switches)");
      }
      if (v.cast<bool>()) args.push_back("--" + key);  // a flag
      continue;
    }
    if (std::find(kFlags.begin(), kFlags.end(), key) != kFlags.end()) {
      // dry_run="no" is true to Python and became `--dry-run no`: a switch takes a bool only.
      throw socsim::config::ConfigError({"python", 0, 0}, k.cast<std::string>(),
                                        "is a switch: expected True or False, got " + py::repr(v).cast<std::string>());
    }
    args.push_back("--" + key);
    args.push_back(option_text(v));
  }
  return args;
}

// The CLI's output-file options: a function returns its report instead, and would ignore them.
void refuse_output_options(const py::kwargs& kwargs, const char* command) {
  for (const char* k : {"json", "report_dir", "report-dir"}) {
    if (!kwargs.contains(k) || kwargs[k].is_none()) continue;
    throw socsim::config::ConfigError({"python", 0, 0}, k,
                                      std::string("socsim.") + command + "() returns the report instead of writing files; save it with json.dump" +
                                          (std::string(k) == "json" ? "" : ", or run `socsim " + std::string(command) + " --report-dir DIR` for the timeline and HTML"));
  }
}

// A keyword argument given and true (a flag).
bool flag(const py::kwargs& kwargs, const char* key) { return kwargs.contains(key) && !kwargs[key].is_none() && py::bool_(kwargs[key]); }

py::object to_python(const nlohmann::ordered_json& j) {
  // The exact JSON the CLI writes, parsed by Python's own json module (numbers, key order and
  // nulls as `json.load` of the --json file gives them).
  return py::module_::import("json").attr("loads")(j.dump());
}

// Ctrl-C while a simulation runs: Python's handler only notes the signal, and Python acts on it
// when it next holds the interpreter, which the simulation has released. The simulation's periodic
// checks (check_host_memory) call this: with the interpreter taken for a moment, a pending
// KeyboardInterrupt (or another handler's exception) is thrown and unwinds the simulation.
void poll_python_signals() {
  py::gil_scoped_acquire acquire;
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

// Python runs signal handlers on its main thread only: elsewhere the poll would take the GIL for
// nothing (and, in a daemon thread at interpreter exit, taking it ends the thread mid-simulation).
bool on_python_main_thread() {
  const auto threading = py::module_::import("threading");
  return threading.attr("current_thread")().is(threading.attr("main_thread")());
}

template <typename F>
nlohmann::ordered_json call_released(F&& f) {
  const socsim::ScopedInterruptPoll poll(on_python_main_thread() ? &poll_python_signals : nullptr);
  py::gil_scoped_release release;
  return f();
}

// results.json's runs, flattened for pandas: run number, the grid's columns (numbers as numbers,
// unset as None), the metrics, error (None when the run succeeded).
py::list rows_of(const std::filesystem::path& results) {
  if (!std::filesystem::exists(results)) throw std::runtime_error("sweep wrote no " + results.string());
  const auto text = py::module_::import("pathlib").attr("Path")(results.string()).attr("read_text")();
  const auto j = py::module_::import("json").attr("loads")(text);
  const py::list columns = j["columns"];
  const py::list metrics = j["metrics"];
  py::list out;
  for (const auto& row : j["runs"]) {
    py::dict d;
    d["run"] = row["run"];
    const py::dict values = row["keys"].cast<py::dict>();
    for (const auto& c : columns) {
      py::object v = values.contains(c) ? py::object(values[c]) : py::object(py::none());
      // Grid values are strings in results.json (as typed); decimal numbers become numbers for
      // pandas (Python's own int() and float(), so big integers stay exact; nan/inf stay text).
      if (py::isinstance<py::str>(v)) {
        const auto text = v.cast<std::string>();
        if (text.empty()) {
          v = py::none();  // a case that leaves the key unset
        } else if (text.find_first_not_of("+-0123456789") == std::string::npos) {
          try {
            v = py::int_(v);
          } catch (const py::error_already_set&) {
          }
        } else if (text.find_first_not_of("+-0123456789.eE") == std::string::npos) {
          try {
            v = py::float_(v);
          } catch (const py::error_already_set&) {
          }
        }
      }
      d[c] = v;
    }
    const py::dict m = row["metrics"].cast<py::dict>();
    for (const auto& name : metrics) d[name] = m.contains(name) ? py::object(m[name]) : py::object(py::none());
    const py::dict r = row.cast<py::dict>();
    d["error"] = r.contains("error") ? py::object(r["error"]) : py::object(py::none());
    out.append(d);
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(socsim, m) {
  m.doc() = "socsim: a cycle-approximate simulator of mobile SoCs running LLM inference (the CLI's commands as functions)";
  m.attr("__version__") = SOCSIM_VERSION;
  // Leaked on purpose: they must outlive the interpreter's finalization.
  static auto* const error = new py::exception<std::runtime_error>(m, "Error");
  static auto* const config_error = new py::exception<socsim::config::ConfigError>(m, "ConfigError", PyExc_ValueError);
  // Local to this module: other extensions' exceptions are theirs to translate. The CLI's exit 2
  // (bad input) raises ConfigError with its message; everything else raises Error (the CLI's
  // "internal error", exit 1), except Python's own exceptions and memory exhaustion.
  py::register_local_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const py::builtin_exception&) {
      throw;
    } catch (const py::error_already_set&) {
      throw;
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const socsim::config::ConfigError& e) {
      config_error->operator()(e.what());
    } catch (const socsim::hw::HardwareLimitError& e) {
      config_error->operator()(e.describe("set={'" + e.key() + "': ...}").c_str());
    } catch (const socsim::TimeOverflow& e) {
      config_error->operator()(e.what());  // a time past 64-bit picoseconds: bad input, as in the CLI
    } catch (const boost::program_options::error& e) {
      config_error->operator()((std::string("command line: ") + e.what()).c_str());  // an unknown or malformed option
    } catch (const std::exception& e) {
      error->operator()(e.what());
    }
  });
  // Warnings to stderr, as the CLI logs them (spdlog's default logger would print to stdout).
  spdlog::set_default_logger(spdlog::stderr_color_mt("socsim"));
  spdlog::set_level(spdlog::level::warn);
  spdlog::set_pattern("[%l] %v");
  // After the pattern (the filter forwards to the sinks it wraps, which format), before any thread.
  socsim::cli::install_distinct_warnings_filter();

  m.def(
      "run",
      [](const py::kwargs& kwargs) {
        refuse_output_options(kwargs, "run");
        const auto args = to_args(kwargs);
        return to_python(call_released([&] { return socsim::cli::run_to_json(args); }));
      },
      "socsim run: run(soc=..., model=..., system=..., prompt=..., decode=..., set={...}, ...) -> the --json report");
  m.def(
      "microbench",
      [](const py::kwargs& kwargs) {
        refuse_output_options(kwargs, "microbench");
        const auto args = to_args(kwargs);
        return to_python(call_released([&] { return socsim::cli::microbench_to_json(args); }));
      },
      "socsim microbench: microbench(soc=..., op=..., unit=..., ...) -> the --json result");
  m.def(
      "serve",
      [](const py::kwargs& kwargs) {
        refuse_output_options(kwargs, "serve");
        const auto args = to_args(kwargs);
        return to_python(call_released([&] { return socsim::cli::serve_to_json(args); }));
      },
      "socsim serve: serve(soc=..., model=..., policy=..., contexts=..., ...) -> the --json report");
  m.def(
      "sweep",
      [](const std::string& spec, py::object jobs, py::object out, const py::kwargs& kwargs) {
        // Into `out` (results.csv, results.json, report.html as the CLI writes them) or a
        // temporary folder removed afterwards; returns the rows.
        namespace fs = std::filesystem;
        if (kwargs.contains("json") && !kwargs["json"].is_none()) throw socsim::config::ConfigError({"python", 0, 0}, "json", "sweep has no --json: its results.json is written to out=");
        // Into a temporary folder removed afterwards, these would be written for nothing, or continue nothing.
        if (out.is_none()) {
          for (const char* k : {"resume", "reports", "report_dir"}) {
            if (flag(kwargs, k) || (std::string(k) == "report_dir" && kwargs.contains(k) && !kwargs[k].is_none())) {
              throw socsim::config::ConfigError({"python", 0, 0}, k, "needs out= (a folder that stays): without it the sweep runs in a temporary folder removed afterwards");
            }
          }
        }
        const bool dry_run = flag(kwargs, "dry_run");
        fs::path dir;
        if (out.is_none()) {
          // A fresh private folder (mkdtemp), removed however the call ends.
          std::string tmpl = (fs::temp_directory_path() / "socsim-sweep-XXXXXX").string();
          if (!::mkdtemp(tmpl.data())) throw std::runtime_error("sweep: cannot make a temporary folder in " + fs::temp_directory_path().string());
          dir = tmpl;
        } else {
          // A folder's path (str or os.PathLike): out=True made a folder named "True".
          if (py::isinstance<py::bool_>(out)) throw socsim::config::ConfigError({"python", 0, 0}, "out", "expected a folder's path, not a bool");
          dir = fs::path(py::str(out).cast<std::string>());
        }
        struct Cleanup {
          fs::path dir;
          ~Cleanup() {
            if (dir.empty()) return;
            std::error_code ec;
            fs::remove_all(dir, ec);  // never throws
          }
        } cleanup{out.is_none() ? dir : fs::path()};
        std::vector<std::string> args{"--spec", spec, "--out", dir.string()};
        if (!jobs.is_none()) args.insert(args.end(), {"--jobs", option_text(jobs)});
        for (const auto& a : to_args(kwargs)) args.push_back(a);
        int code = 0;
        {
          py::gil_scoped_release release;
          code = socsim::cli::sweep_command(args);
        }
        // The sweep's own Ctrl-C handling (runs in flight finish and are journaled, so out= can be
        // resumed) ends it with 128 + SIGINT: Python's KeyboardInterrupt, as for the other calls.
        if (code == 128 + SIGINT) {
          PyErr_SetNone(PyExc_KeyboardInterrupt);
          throw py::error_already_set();
        }
        if (code != 0 && code != 3) throw std::runtime_error("sweep ended with status " + std::to_string(code));
        if (dry_run) return py::object(py::none());  // the listing went to stdout; nothing ran
        py::list rows = rows_of(dir / "results.json");  // status 3: some runs failed, their rows carry the error
        return py::object(std::move(rows));
      },
      py::arg("spec"), py::arg("jobs") = py::none(), py::arg("out") = py::none(),
      "socsim sweep: sweep(spec, jobs=None, out=None, shard=None, resume=False, dry_run=False) -> one dict per run (its grid "
      "values, metrics and error), ready for pandas.DataFrame; None with dry_run=True (the runs are listed on stdout)");
}
