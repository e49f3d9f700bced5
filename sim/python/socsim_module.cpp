// socsim from Python (pybind11): the CLI's in-process commands behind Python calls, so a result is
// the same report `socsim run ... --json` writes, from the same C++ core (no second implementation).
//
//   import socsim
//   r = socsim.run(soc="snapdragon-8gen3", model="llama-3-8b", system="hetero-tensor",
//                  prompt=1024, decode=64, set={"npu.tcm": "16MiB"})   # dict, as --json
//   rows = socsim.sweep("workloads/sweeps/tcm-size.yaml", jobs=2)     # list of dicts
//   pandas.DataFrame(rows)
//
// Keyword arguments become the command's options (`decode_window=8` -> `--decode-window 8`; True
// -> a bare flag; `set` a dict or a list of "key=value"). Bad input raises socsim.ConfigError (a
// ValueError) with the CLI's message (file:line: key: what was expected); any other failure
// raises socsim.Error. The GIL is released while a simulation runs.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/program_options/errors.hpp>
#include <nlohmann/json.hpp>

#include "sim/cli/command.h"
#include "sim/config/config_error.h"
#include "sim/core/time.h"

namespace py = pybind11;

namespace {

// Python value -> option text, as it would be typed on the command line.
std::string option_text(const py::handle& v) {
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>() ? "true" : "false";
  return py::str(v).cast<std::string>();
}

// kwargs -> ["--key", "value", ...]; `set` expands to one --set per entry.
std::vector<std::string> to_args(const py::kwargs& kwargs) {
  std::vector<std::string> args;
  for (const auto& [k, v] : kwargs) {
    std::string key = k.cast<std::string>();
    if (v.is_none()) continue;
    if (key == "set") {
      if (py::isinstance<py::dict>(v)) {
        for (const auto& [sk, sv] : v.cast<py::dict>()) {
          args.push_back("--set");
          args.push_back(py::str(sk).cast<std::string>() + "=" + option_text(sv));
        }
      } else {
        for (const auto& item : v) {
          args.push_back("--set");
          args.push_back(py::str(item).cast<std::string>());
        }
      }
      continue;
    }
    for (char& c : key) {
      if (c == '_') c = '-';
    }
    if (py::isinstance<py::bool_>(v)) {
      if (v.cast<bool>()) args.push_back("--" + key);  // a flag
      continue;
    }
    args.push_back("--" + key);
    args.push_back(option_text(v));
  }
  return args;
}

py::object to_python(const nlohmann::ordered_json& j) {
  // The exact JSON the CLI writes, parsed by Python's own json module (numbers, key order and
  // nulls as `json.load` of the --json file gives them).
  return py::module_::import("json").attr("loads")(j.dump());
}

template <typename F>
nlohmann::ordered_json call_released(F&& f) {
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
      // Grid values are strings in results.json (as typed); numbers become numbers for pandas.
      if (py::isinstance<py::str>(v)) {
        const auto s = v.cast<std::string>();
        if (s.empty()) v = py::none();  // a case that leaves the key unset
        else try {
          std::size_t used = 0;
          const double x = std::stod(s, &used);
          if (used == s.size()) v = (s.find_first_of(".eE") == std::string::npos) ? py::object(py::int_(static_cast<long long>(x))) : py::object(py::float_(x));
        } catch (const std::exception&) {
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
  static py::exception<std::runtime_error> error(m, "Error");
  static py::exception<socsim::config::ConfigError> config_error(m, "ConfigError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const socsim::config::ConfigError& e) {
      config_error(e.what());
    } catch (const socsim::TimeOverflow& e) {
      config_error(e.what());  // the CLI's exit 2: the input asks for a time past 64-bit picoseconds
    } catch (const boost::program_options::error& e) {
      config_error((std::string("command line: ") + e.what()).c_str());  // an unknown or malformed option: the CLI exits 2
    } catch (const std::invalid_argument& e) {
      config_error(e.what());
    } catch (const std::exception& e) {
      error(e.what());
    }
  });

  m.def(
      "run",
      [](const py::kwargs& kwargs) {
        const auto args = to_args(kwargs);
        return to_python(call_released([&] { return socsim::cli::run_to_json(args); }));
      },
      "socsim run: run(soc=..., model=..., system=..., prompt=..., decode=..., set={...}, ...) -> the --json report");
  m.def(
      "microbench",
      [](const py::kwargs& kwargs) {
        const auto args = to_args(kwargs);
        return to_python(call_released([&] { return socsim::cli::microbench_to_json(args); }));
      },
      "socsim microbench: microbench(soc=..., op=..., unit=..., ...) -> the --json result");
  m.def(
      "serve",
      [](const py::kwargs& kwargs) {
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
        static std::atomic<unsigned> serial{0};
        const bool temporary = out.is_none();
        const fs::path dir = temporary ? fs::temp_directory_path() / ("socsim-sweep-" + std::to_string(::getpid()) + "-" +
                                                                    std::to_string(serial++))
                                       : fs::path(py::str(out).cast<std::string>());
        std::vector<std::string> args{"--spec", spec, "--out", dir.string()};
        if (!jobs.is_none()) args.insert(args.end(), {"--jobs", option_text(jobs)});
        for (const auto& a : to_args(kwargs)) args.push_back(a);
        int code = 0;
        {
          py::gil_scoped_release release;
          code = socsim::cli::sweep_command(args);
        }
        py::list rows;
        try {
          if (code != 0 && code != 3) throw std::runtime_error("sweep ended with status " + std::to_string(code));
          rows = rows_of(dir / "results.json");  // status 3: some runs failed, their rows carry the error
        } catch (...) {
          if (temporary) fs::remove_all(dir);
          throw;
        }
        if (temporary) fs::remove_all(dir);
        return rows;
      },
      py::arg("spec"), py::arg("jobs") = py::none(), py::arg("out") = py::none(),
      "socsim sweep: sweep(spec, jobs=None, out=None, shard=None, resume=False) -> one dict per run (its grid "
      "values, metrics and error), ready for pandas.DataFrame");
}
