// `socsim serve`: the LLMS service simulation (../shared/papers/llms.md). Every input is resolved
// and checked before anything runs; bad input exits 2 naming the option or key; nothing is written.
#include "sim/cli/program_options.h"
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <regex>
#include <sstream>

#include "sim/report/json_text.h"
#include "sim/cli/command.h"
#include "sim/core/host_memory.h"
#include "sim/cli/host_memory_option.h"
#include "sim/cli/input_paths.h"
#include "sim/cli/output_files.h"
#include "sim/config/config_error.h"
#include "sim/config/longest_time.h"
#include "sim/core/run_progress.h"
#include "sim/config/config_tree.h"
#include "sim/config/units.h"
#include "sim/model/model_config.h"
#include "sim/systems/llms/llms_options.h"
#include "sim/systems/llms/serve_run.h"

namespace po = boost::program_options;

namespace socsim::cli {

namespace {

const config::SourceLocation kCommandLine{"command line", 0, 0};

[[noreturn]] void bad(const std::string& option, const std::string& msg) { throw config::ConfigError(kCommandLine, option, msg); }

// "1/5min", "12/h", "0.01/s", "2e3/1ms": calls per second.
double parse_rate(const std::string& text) {
  static const std::regex re(R"(^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*/\s*([0-9]*\.?[0-9]*(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z]+)\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, re)) bad("--rate", "expected calls per period such as 1/5min, 12/h or 0.01/s, got '" + text + "'");
  static const std::pair<const char*, double> units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}, {"min", 60.0}, {"h", 3600.0}, {"d", 86400.0}};
  double unit = 0;
  for (const auto& [name, seconds] : units) {
    if (m[3] == name) unit = seconds;
  }
  if (unit == 0) bad("--rate", "'" + m[3].str() + "' is not a unit of time (expected ns, us, ms, s, min, h or d), got '" + text + "'");
  const double calls = std::strtod(m[1].str().c_str(), nullptr);
  const double periods = m[2].length() ? std::strtod(m[2].str().c_str(), nullptr) : 1.0;
  if (!std::isfinite(calls) || !std::isfinite(periods)) bad("--rate", "a number past double's range, got '" + text + "'");
  if (!(calls > 0) || !(periods > 0)) bad("--rate", "must be > 0, got '" + text + "'");
  const double rate = calls / (periods * unit);
  if (!std::isfinite(rate) || !(rate > 0)) bad("--rate", "calls per second past double's range, got '" + text + "'");
  return rate;
}

std::filesystem::path default_datasets() {
  for (const auto& root : {std::filesystem::current_path(), std::filesystem::path(SOCSIM_SOURCE_DIR)}) {
    const auto p = root / "workloads" / "llms" / "datasets.yaml";
    if (std::filesystem::is_regular_file(p)) return p;
  }
  bad("--datasets", "workloads/llms/datasets.yaml not found; give --datasets FILE");
}

// The parsed and checked command line: everything serve_run needs, and where the JSON goes.
struct ServeInvocation {
  bool help = false;
  systems::llms::ServeRequest rq;
  std::string json_file;
  std::uint64_t max_host_memory = 0;  // 0 = none
};

ServeInvocation parse_serve(const std::vector<std::string>& args) {
  config::forget_times_read();  // an overflow names the longest duration of these inputs
  ServeInvocation inv;
  auto& rq = inv.rq;
  auto& json_file = inv.json_file;
  po::options_description opts("socsim serve options");
  std::string soc, model, policy, pattern = "random", budget = "2 GiB", rate = "1/5min", trace_file, datasets,
                                  bound = "10 ms", mode = "timing", max_host_memory;
  std::vector<std::string> sets;
  std::int64_t contexts = -1;
  double hours = 72;
  std::uint64_t seed = 0;
  opts.add_options()
      ("help,h", "this message")
      ("soc", po::value(&soc), "SoC file or id, e.g. snapdragon-8gen3, jetson-orin-nx, jetson-tx2")
      ("model", po::value(&model), "model config.json or id, e.g. llama-2-7b")
      ("policy", po::value(&policy), "llms | lmk (kill and recompute) | swap (whole contexts) | vllm-s (FP16 chunks) | vllm-sq (INT8 chunks)")
      ("contexts", po::value(&contexts), "active contexts (apps); also the top of the max-active-contexts search")
      ("pattern", po::value(&pattern), "context selection: random (default) | markov | gaussian")
      ("hours", po::value(&hours), "simulated hours of calls (default 72, the paper's traces)")
      ("memory-budget", po::value(&budget), "memory for contexts (default 2 GiB)")
      ("rate", po::value(&rate), "mean call rate, Poisson (default 1/5min)")
      ("latency-bound", po::value(&bound), "switch latency bound for max_active_contexts (default 10 ms)")
      ("trace", po::value(&trace_file), "replay this trace ('time_s context delta_tokens' per line) instead of generating one")
      ("datasets", po::value(&datasets), "delta-length table (default workloads/llms/datasets.yaml)")
      ("mode", po::value(&mode), "timing (default: synthetic lognormal chunk densities) | functional (densities from the attention "
                                 "scores of a seeded stand-in decoder run over each context's text as it grows; reports compression accuracy)")
      ("seed", po::value(&seed), "seed of the trace and the synthetic chunk densities (default 0)")
      ("set", po::value(&sets)->composing(), "override a parameter: --set llms.chunk_tokens=32, --set storage.read_bandwidth=1GB/s")
      ("json", po::value(&json_file), "write the JSON report to this file")
      ("max-host-memory", po::value(&max_host_memory), "stop with exit 2 when the service holds more host memory than this "
                                                       "(default: half the machine's memory; 0 = no limit), e.g. 4GiB");
  po::variables_map vm;
  parse_options(args, opts, vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << "usage: socsim serve --soc S --model M --policy llms|lmk|swap|vllm-s|vllm-sq --contexts N\n"
                 "                    [--pattern random|markov|gaussian] [--hours H] [--memory-budget 2GiB] [--rate 1/5min]\n"
                 "                    [--latency-bound 10ms] [--trace FILE] [--mode timing|functional] [--seed N] [--set key=value]...\n"
                 "                    [--json FILE] [--max-host-memory SIZE]\n\n"
                 "Simulates LLMS (an LLM as a system service): apps' contexts called over hours; reports the context-switching\n"
                 "latency (time to bring the called context's KV cache into memory), the most active contexts whose mean stays\n"
                 "under --latency-bound, storage traffic and energy. llms.* options (--set): chunk_tokens (16), global_ratio\n"
                 "(0.5), compression, recompute_pipeline, lifecycle (true: the ablation switches), recompute_system (gpu-only),\n"
                 "density_sigma (1.0), markov_decay (0.5), max_context (tokens; default: the model's window); the chunk I/O path:\n"
                 "io_granularity (layer|chunk), io_file_cycles (20000), io_tensor_cycles (150000), io_host_copies (2), io_upload\n"
                 "(true); see sim/systems/llms/llms_options.h and chunk_io_path.h.\n\n"
              << opts;
    inv.help = true;
    return inv;
  }
  if (soc.empty()) bad("--soc", "is required (a SoC file or id such as snapdragon-8gen3)");
  if (model.empty()) bad("--model", "is required (a config.json or id such as llama-2-7b)");
  if (policy.empty()) bad("--policy", "is required: llms, lmk, swap, vllm-s or vllm-sq");
  if (!vm.count("contexts")) bad("--contexts", "is required (1..1024)");
  if (contexts < 1 || contexts > 1024) bad("--contexts", "must be in 1..1024, got " + std::to_string(contexts));
  // Checked before the hours of service are simulated, not when the report is written.
  if (!json_file.empty()) check_output_path("--json", json_file, false);

  try {
    rq.service.policy = systems::llms::parse_policy(policy);
  } catch (const std::invalid_argument& e) {
    bad("--policy", e.what());
  }
  try {
    rq.trace.pattern = systems::llms::parse_pattern(pattern);
  } catch (const std::invalid_argument& e) {
    bad("--pattern", e.what());
  }
  if (mode == "functional") {
    rq.service.density_source = systems::llms::DensitySource::kAttentionScores;
  } else if (mode != "timing") {
    bad("--mode", "expected timing or functional, got '" + mode + "'");
  }
  if (!(hours > 0) || hours > 24 * 365) bad("--hours", "must be in (0, 8760]");
  // A replayed trace brings its calls' times and contexts: the options that generate a trace
  // would be ignored, so they are refused.
  if (!trace_file.empty()) {
    for (const char* o : {"hours", "rate", "pattern"}) {
      if (vm.count(o)) bad(std::string("--") + o, "does not apply with --trace (the trace file gives every call's time and context)");
    }
    if (vm.count("datasets")) bad("--datasets", "does not apply with --trace (the trace file gives every call's delta tokens)");
    // The most active contexts under the bound are searched over generated traces of each count.
    if (vm.count("latency-bound")) bad("--latency-bound", "does not apply with --trace (max_active_contexts is searched over generated traces)");
  }
  try {
    const double b = config::parse_quantity(budget, config::Quantity::kSize);
    config::check_byte_count(b, budget);  // 1e30GiB became 0 and "must be > 0"
    if (b < 0) bad("--memory-budget", "must be > 0, got " + budget);
    rq.service.memory_budget = static_cast<std::uint64_t>(b);
  } catch (const std::invalid_argument& e) {
    bad("--memory-budget", e.what());
  }
  try {
    rq.latency_bound_s = config::parse_quantity(bound, config::Quantity::kTime);
  } catch (const std::invalid_argument& e) {
    bad("--latency-bound", e.what());
  }
  // As every other time: 64-bit picoseconds (213 days) hold it.
  // Latencies are whole picoseconds: a bound below one would accept no switch at all.
  if (!(rq.latency_bound_s >= 1e-12) || rq.latency_bound_s > 1.8e7) bad("--latency-bound", "must be at least 1 ps and at most 213 days (64-bit picoseconds), got " + bound);
  if (rq.service.memory_budget == 0) bad("--memory-budget", "must be > 0");
  rq.trace.calls_per_s = parse_rate(rate);
  // The trace is held in memory, one entry per call: bound it (1000/1s over 72 h would be 259 M
  // calls, an allocation failure rather than a message).
  constexpr double kMaxCalls = 10e6;
  if (rq.trace.calls_per_s * hours * 3600.0 > kMaxCalls) {
    // (Printed as a double: the count may pass 64 bits.)
    bad("--rate", fmt::format("with --hours {} this is {:.4g} calls on average, more than the 10000000 a trace may hold; lower --rate or --hours",
                              hours, rq.trace.calls_per_s * hours * 3600.0));
  }
  // A synthetic trace of less than one call on average has nothing to serve (a --trace without
  // calls is refused as well).
  if (trace_file.empty() && rq.trace.calls_per_s * hours * 3600.0 < 1) {
    bad("--hours", "with --rate " + rate + " this is less than one call on average; raise --hours or --rate");
  }
  // A synthetic trace is served once per context count (the max-active-contexts search): calls x
  // contexts call simulations, at about 15,000 a second in timing mode under --policy llms on the
  // 2-core CI machine (swap and the others faster). Past 2*10^8 of them (about four hours) the
  // command is refused with its size instead of started (a year of calls over 1024 contexts was
  // weeks of work, announced only after its first hour), before the trace is drawn. A call also
  // costs more as the contexts grow (its reclaim scans every chunk held; LLMS re-ranks the call's
  // window; functional mode's decoder attends over it): serve_run counts that from the trace
  // (llms/density_work.h), replayed traces too.
  if (trace_file.empty()) {
    constexpr double kMaxCallRuns = 2e8;
    const double calls = rq.trace.calls_per_s * hours * 3600.0, runs = calls * static_cast<double>(contexts);
    if (runs > kMaxCallRuns) {
      bad("--contexts", fmt::format("with --hours {} and --rate {} this serves about {:.0f} calls {} times (once per context count: the "
                                    "max-active-contexts search), {:.3g} call simulations, more than a serve command takes (2e8: "
                                    "hours of work); lower --contexts, --hours or --rate",
                                    hours, rate, calls, contexts, runs));
    }
  }
  rq.trace.hours = hours;
  rq.trace.seed = seed;
  rq.service.seed = seed;
  rq.service.contexts = static_cast<std::uint32_t>(contexts);

  const auto soc_path = resolve_input(InputKind::kSoc, soc);
  rq.soc_id = soc_path.stem().string();
  auto tree = config::ConfigTree::load_file(soc_path);
  for (const auto& o : sets) tree.apply_override(o);
  rq.soc = hw::parse_soc_spec(tree);
  rq.soc.source_file = soc_path.string();
  if (rq.service.memory_budget > rq.soc.dram.capacity_bytes) {
    bad("--memory-budget", fmt::format("exceeds the device's memory (dram.capacity, {:.2f} GiB)", static_cast<double>(rq.soc.dram.capacity_bytes) / (1024.0 * 1024 * 1024)));
  }
  auto root = tree.root();
  rq.service.options = systems::llms::read_options(root);
  // The Markov pattern's decay shapes only a generated Markov trace: elsewhere it would be ignored.
  if (const auto llms = root.optional_child("llms"); llms && (!trace_file.empty() || pattern != "markov")) {
    llms->refuse({"markov_decay"}, "applies to --pattern markov" + std::string(trace_file.empty() ? ", not " + pattern : " traces, not a replayed --trace"));
  }
  // Densities are drawn or computed only for LLMS's compression: elsewhere functional mode computes
  // nothing, and with a replayed trace the seed has nothing else to draw.
  const bool densities_used = rq.service.policy == systems::llms::Policy::kLlms && rq.service.options.compression;
  if (!densities_used && mode == "functional") {
    bad("--mode", "functional computes the chunk densities LLMS's compression ranks; --policy " + policy +
                      (rq.service.policy == systems::llms::Policy::kLlms ? " with llms.compression: false" : "") + " uses none");
  }
  if (!trace_file.empty() && vm.count("seed") && !densities_used) {
    bad("--seed", "draws the trace and the densities (synthetic, or the text functional mode reads); with --trace and --policy " + policy +
                      (rq.service.policy == systems::llms::Policy::kLlms ? " without compression" : "") + " it draws nothing");
  }
  // LLMS's own mechanisms: the baselines have no compression, pipeline or lifecycle, and move whole
  // chunks; without compression no density is ranked. Set there, they would change nothing.
  if (const auto llms = root.optional_child("llms")) {
    // lmk kills and recomputes: it never reads or writes storage.
    if (rq.service.policy == systems::llms::Policy::kLmk) {
      llms->refuse({"io_file_cycles", "io_tensor_cycles", "io_host_copies", "io_upload"},
                   "costs the chunk I/O path, which --policy lmk never takes (it recomputes)");
    }
    if (rq.service.policy != systems::llms::Policy::kLlms) {
      llms->refuse({"global_ratio", "compression", "recompute_pipeline", "lifecycle", "io_granularity", "density_sigma"},
                   "applies to --policy llms; --policy " + policy + " has no compression, swap/recompute pipeline or context lifecycle");
    } else if (!rq.service.options.compression) {
      llms->refuse({"global_ratio", "density_sigma"}, "ranks chunks for compression, which llms.compression: false turns off");
    } else if (rq.service.density_source == systems::llms::DensitySource::kAttentionScores) {
      llms->refuse({"density_sigma"}, "shapes the synthetic densities of timing mode; --mode functional derives them from attention scores");
    }
  }
  tree.check_all_consumed();
  rq.trace.markov_decay = rq.service.options.markov_decay;
  const auto model_path = resolve_input(InputKind::kModel, model);
  rq.model = model::load_model_config(model_path);
  if (!json_file.empty()) {
    check_output_not_input("--json", json_file,
                           with_included({{"--soc", soc_path}, {"--model", model_path}, {"--trace", trace_file}, {"--datasets", datasets}}, "--soc", tree));
  }
  if (rq.service.options.max_context > 0) {
    if (rq.service.options.max_context > rq.model.max_context) {
      bad("llms.max_context", "exceeds " + rq.model.id + "'s window of " + std::to_string(rq.model.max_context) + " tokens");
    }
    rq.model.max_context = rq.service.options.max_context;  // the service's cap is the window it slides
  }
  if (rq.model.max_context > 0 && rq.service.options.chunk_tokens > rq.model.max_context) {
    // A chunk never holds more than the window: its memory, I/O and recompute would be costed for
    // tokens no context can have.
    bad("llms.chunk_tokens", std::to_string(rq.service.options.chunk_tokens) + " tokens exceed the window of " +
                                 std::to_string(rq.model.max_context) + " tokens (" +
                                 (rq.service.options.max_context > 0 ? "llms.max_context" : rq.model.id + "'s") + ")");
  }
  rq.service.model = rq.model;
  rq.datasets = systems::llms::read_dataset_table(datasets.empty() ? default_datasets() : std::filesystem::path(datasets));
  if (!trace_file.empty()) {
    rq.replay = systems::llms::read_trace_file(trace_file, rq.service.contexts);
    rq.trace_file = trace_file;
  }
  const auto window = systems::llms::base_chunk_bytes(rq.service.policy, rq.model, rq.service.options.chunk_tokens) *
                      ((rq.model.max_context + rq.service.options.chunk_tokens - 1) / rq.service.options.chunk_tokens);
  if (window > rq.service.memory_budget) {
    bad("--memory-budget", "one " + rq.model.id + " context at its " + std::to_string(rq.model.max_context) + "-token window takes " +
                               std::to_string(window) + " B under --policy " + policy + "; the budget must hold at least that (or cap contexts: --set llms.max_context=N)");
  }

  inv.max_host_memory = host_memory_limit(max_host_memory);
  return inv;
}

// serve_run under --max-host-memory (contexts grow with every call: many contexts of small chunks
// over a long window took gigabytes).
nlohmann::ordered_json bounded_serve(const ServeInvocation& inv) {
  const ScopedHostMemoryLimit limit(inv.max_host_memory);
  try {
    return systems::llms::serve_run(inv.rq);
  } catch (const HostMemoryExceeded& e) {
    throw config::ConfigError(kCommandLine, "--max-host-memory",
                              std::string(e.what()) + " while serving; use fewer --contexts, a larger llms.chunk_tokens, a smaller "
                                                      "llms.max_context or fewer --hours, or raise --max-host-memory");
  }
}

}  // namespace

nlohmann::ordered_json serve_to_json(const std::vector<std::string>& args) {
  const auto inv = parse_serve(args);
  if (inv.help) throw config::ConfigError(kCommandLine, "--help", "has no JSON result");
  return bounded_serve(inv);
}

int serve_command(const std::vector<std::string>& args) {
  const auto inv = parse_serve(args);
  if (inv.help) return 0;
  const auto& json_file = inv.json_file;
  // A long service (functional mode, many contexts, a long trace) says how far it has got: after
  // 10 s, then every second on a terminal or every 30 s in a log or a pipe.
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  nlohmann::ordered_json report;
  {
    const ScopedRunProgress progress(10.0, terminal ? 1.0 : 30.0, stderr, terminal);
    report = bounded_serve(inv);
  }
  OutputFiles out;
  if (!json_file.empty()) out.add(json_file, report::json_text(report, 2) + "\n");
  out.write_all();
  std::cout << systems::llms::serve_summary(report);
  for (const auto& f : out.paths()) std::cout << "  wrote " << f.string() << "\n";
  return 0;
}

}  // namespace socsim::cli
