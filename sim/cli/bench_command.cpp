// `socsim bench`: how fast the simulator itself is. Wall time of whole runs (the same code paths
// as `socsim run`, called in-process) and the engine's raw event rate. Simulated results are not
// the point here; each case's simulated TTFT is printed only to show what ran.
//
// Timing is wall-clock (std::chrono::steady_clock), so figures depend on the machine and its load:
// the bench reports the minimum and the median of --repeat runs. It is a measuring tool, never a
// pass/fail test (tests/benchmarks has the Google Benchmark equivalents).
#include "sim/cli/program_options.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "sim/cli/command.h"
#include "sim/cli/output_files.h"
#include "sim/config/config_error.h"
#include "sim/core/simulator.h"
#include "sim/core/task.h"

namespace po = boost::program_options;

namespace socsim::cli {

namespace {

struct BenchCase {
  std::string name;
  std::string what;
  std::vector<std::string> run_args;  // empty: the engine event-loop case
  bool functional = false;
};

// The cases issue 5 asks for, plus the other timing baselines at the same size.
std::vector<BenchCase> bench_cases() {
  const auto run = [](std::string model, std::string system, std::string prompt, std::string decode, bool functional) {
    std::vector<std::string> a = {"--soc", "snapdragon-8gen3", "--model", model, "--system", system, "--prompt", prompt, "--decode", decode};
    if (functional) a.insert(a.end(), {"--mode", "functional"});
    return a;
  };
  return {
      {"engine", "event loop: 64 processes x 100000 delays", {}, false},
      {"timing-llama3-8b-gpu", "timing llama-3-8b gpu-only prompt 1024 + decode 64", run("llama-3-8b", "gpu-only", "1024", "64", false), false},
      {"timing-llama3-8b-cpu", "timing llama-3-8b cpu-only prompt 1024 + decode 64", run("llama-3-8b", "cpu-only", "1024", "64", false), false},
      {"timing-qwen2-1.5b-npu", "timing qwen2-1.5b npu-only prompt 1024 + decode 64", run("qwen2-1.5b", "npu-only", "1024", "64", false), false},
      {"functional-qwen2-0.5b-npu", "functional qwen2-0.5b npu-only prompt 256 + decode 8", run("qwen2-0.5b", "npu-only", "256", "8", true), true},
  };
}

Task<> delay_loop(Simulator& sim, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) co_await sim.delay(10 + (i & 7));
}

struct Sample {
  double wall_s = 0;
  std::uint64_t events = 0;
  double ttft_ms = 0;
};

Sample run_case(const BenchCase& c) {
  Sample s;
  const auto t0 = std::chrono::steady_clock::now();
  if (c.run_args.empty()) {
    Simulator sim;
    for (int p = 0; p < 64; ++p) sim.spawn(delay_loop(sim, 100000), "bench." + std::to_string(p));
    sim.run();
    s.events = sim.events_fired();
  } else {
    const auto j = run_to_json(c.run_args);
    s.ttft_ms = j.value("ttft_ms", 0.0);
    if (j.contains("events")) s.events = j["events"].get<std::uint64_t>();
  }
  s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

}  // namespace

int bench_command(const std::vector<std::string>& args) {
  po::options_description opts("socsim bench options");
  std::uint32_t repeat = 3;
  std::vector<std::string> only;
  std::string json_file;
  bool quick = false, list = false;
  opts.add_options()
      ("help,h", "this message")
      ("repeat", po::value(&repeat), "runs per case (default 3); min and median are reported")
      ("case", po::value(&only)->composing(), "run only this case (repeatable; see --list)")
      ("quick", po::bool_switch(&quick), "skip the functional-mode case")
      ("list", po::bool_switch(&list), "list the cases and exit")
      ("json", po::value(&json_file), "write the results as JSON to this file");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << "usage: socsim bench [--repeat N] [--case NAME]... [--quick] [--list] [--json FILE]\n\n"
                 "Wall time of whole simulations (in-process, as `socsim run`) and the engine's event rate.\n\n"
              << opts;
    return 0;
  }
  const auto cases = bench_cases();
  if (list) {
    for (const auto& c : cases) std::cout << fmt::format("{:28} {}\n", c.name, c.what);
    return 0;
  }
  const config::SourceLocation cli{"command line", 0, 0};
  if (repeat < 1) throw config::ConfigError(cli, "--repeat", "must be >= 1");
  for (const auto& name : only) {
    if (std::none_of(cases.begin(), cases.end(), [&](const BenchCase& c) { return c.name == name; })) {
      std::string known;
      for (const auto& c : cases) known += (known.empty() ? "" : ", ") + c.name;
      throw config::ConfigError(cli, "--case", "unknown case '" + name + "' (cases: " + known + ")");
    }
  }

  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  std::cout << fmt::format("{:28} {:>10} {:>10} {:>14} {:>12}\n", "case", "min_s", "median_s", "events/s", "ttft_ms");
  for (const auto& c : cases) {
    if (!only.empty() && std::find(only.begin(), only.end(), c.name) == only.end()) continue;
    if (quick && c.functional) continue;
    std::vector<Sample> samples;
    for (std::uint32_t i = 0; i < repeat; ++i) samples.push_back(run_case(c));
    std::vector<double> walls;
    for (const auto& s : samples) walls.push_back(s.wall_s);
    std::sort(walls.begin(), walls.end());
    const double min = walls.front(), median = walls[walls.size() / 2];
    const std::uint64_t events = samples.front().events;
    const double rate = events > 0 ? static_cast<double>(events) / min : 0.0;
    std::cout << fmt::format("{:28} {:>10.3f} {:>10.3f} {:>14.3g} {:>12.1f}\n", c.name, min, median, rate, samples.front().ttft_ms);
    nlohmann::ordered_json j = {{"case", c.name}, {"what", c.what}, {"repeat", repeat}, {"wall_min_s", min}, {"wall_median_s", median}};
    if (events > 0) j["events"] = events, j["events_per_s"] = rate;
    if (!c.run_args.empty()) j["ttft_ms"] = samples.front().ttft_ms;
    results.push_back(j);
  }
  if (!json_file.empty()) {
    OutputFiles out;
    out.add(json_file, nlohmann::ordered_json{{"cases", results}}.dump(2) + "\n");
    out.write_all();
  }
  return 0;
}

}  // namespace socsim::cli
