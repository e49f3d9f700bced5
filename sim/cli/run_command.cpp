// `socsim run`: simulate one inference. Every input is resolved and checked before anything runs
// or is written (contract: bad input -> exit 2, nothing written).
#include "sim/cli/program_options.h"
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <utility>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include <unistd.h>

#include "sim/report/json_text.h"
#include "sim/cli/command.h"
#include "sim/cli/host_memory_option.h"
#include "sim/cli/input_paths.h"
#include "sim/cli/option_owners.h"
#include "sim/cli/output_files.h"
#include "sim/cli/progress_bar.h"
#include "sim/cli/run_setup.h"
#include "sim/cli/trace_detail_option.h"
#include "sim/config/config_error.h"
#include "sim/config/longest_time.h"
#include "sim/config/config_tree.h"
#include "sim/functional/functional_run.h"
#include "sim/report/html_report.h"
#include "sim/report/trace.h"
#include "sim/core/host_memory.h"
#include "sim/core/run_progress.h"
#include "sim/runtime/host_memory_estimate.h"
#include "sim/systems/memory_fit.h"
#include "sim/runtime/simulate_run.h"
#include "sim/systems/system.h"
#include "sim/runtime/workload/workload.h"
#include "sim/systems/system_ids.h"
#include <spdlog/spdlog.h>

namespace po = boost::program_options;

namespace socsim::cli {

namespace {

const config::SourceLocation kCommandLine{"command line", 0, 0};

[[noreturn]] void bad(const std::string& option, const std::string& msg) { throw config::ConfigError(kCommandLine, option, msg); }

struct Lengths {
  std::uint64_t prompt = 0, decode = 0, batch = 1;
};

}  // namespace

// Everything `socsim run` resolved from its options, checked, ready to simulate.
struct RunSetup {
  bool help = false;
  std::string help_text;
  runtime::RunRequest req;
  std::unique_ptr<systems::System> strategy;
  bool functional = false;
  bool seed_without_effect = false;  // --seed given where nothing draws (warned)
  functional::FunctionalOptions fopt;
  std::string report_dir, json_file;
  report::TraceDetail trace_detail = report::TraceDetail::kOff;
  // The resolved SoC description, dumped as YAML only for a report page (the dump took ~4% of a
  // short run's instructions).
  std::shared_ptr<const config::ConfigTree> soc_tree;
  runtime::Workload workload;  // the file's, when --workload gave the requests (its lines for errors)
};

void RunSetupDeleter::operator()(RunSetup* s) const { delete s; }

RunSetupPtr prepare_run(const std::vector<std::string>& args) {
  config::forget_times_read();  // an overflow names the longest duration of this run's inputs
  RunSetupPtr setup(new RunSetup);
  RunSetup& outcome = *setup;
  po::options_description opts("socsim run options");
  std::string soc, model, system, workload, mode = "timing", report_dir, json_file, weights;
  std::vector<std::string> sets;
  std::int64_t prompt = -1, decode = -1, batch = -1, functional_layers = -1;
  std::uint64_t seed = 0;
  std::string max_host_memory, trace_detail = "auto";
  opts.add_options()
      ("help,h", "this message")
      ("soc", po::value(&soc), "SoC file or id (soc_configs/<id>.yaml), e.g. snapdragon-8gen3")
      ("model", po::value(&model), "model config.json or id (models/<id>.json), e.g. qwen2-1.5b")
      ("system", po::value(&system), "system id: cpu-only, gpu-only, npu-naive, llm-npu, hetero-layer, hetero-tensor, shadowattn, ...")
      ("workload", po::value(&workload), "workload file or id (workloads/<id>.yaml); or give --prompt/--decode/--batch")
      ("prompt", po::value(&prompt), "prompt tokens")
      ("decode", po::value(&decode), "decode tokens")
      ("batch", po::value(&batch), "batch size (default 1)")
      ("set", po::value(&sets)->composing(), "override a parameter: --set dram.peak=60GB/s (repeatable)")
      ("mode", po::value(&mode), "timing (default) or functional")
      ("seed", po::value(&seed), "random seed (default 0)")
      ("weights", po::value(&weights), "functional mode: a safetensors checkpoint (default: synthetic weights from --seed)")
      ("functional-layers", po::value(&functional_layers), "functional mode: compute the first N decoder layers (default: all)")
      ("report-dir", po::value(&report_dir), "write report.json, trace.json and report.html here")
      ("trace-detail", po::value(&trace_detail),
       "with --report-dir: auto (default: hardware detail for the first 1,000,000 spans, then jobs only), full (all), "
       "or summary (jobs, sync and the DRAM bandwidth only)")
      ("json", po::value(&json_file), "write the JSON report to this file")
      ("max-host-memory", po::value(&max_host_memory), "stop with exit 2 when the simulation holds more host memory than this (default: half the machine's memory; 0 = no limit), e.g. 4GiB");
  po::variables_map vm;
  parse_options(args, opts, vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::ostringstream h;
    h << "usage: socsim run --soc S --model M --system Y [--workload W | --prompt N --decode N --batch N]\n"
         "                  [--set key=value]... [--mode functional|timing] [--seed N] [--report-dir DIR] [--json FILE]\n"
         "                  [--weights FILE.safetensors] [--functional-layers N] [--trace-detail auto|full|summary]\n\n"
      << opts;
    outcome.help = true;
    outcome.help_text = h.str();
    return setup;
  }
  // An empty path would write nothing without a word.
  if (vm.count("json") && json_file.empty()) bad("--json", "expected a file path, got an empty value");
  if (vm.count("report-dir") && report_dir.empty()) bad("--report-dir", "expected a folder path, got an empty value");
  if (!json_file.empty()) check_output_path("--json", json_file, false);
  if (!report_dir.empty()) check_output_path("--report-dir", report_dir, true);
  if (soc.empty()) bad("--soc", "is required (a SoC file or id such as snapdragon-8gen3)");
  if (model.empty()) bad("--model", "is required (a config.json or id such as qwen2-1.5b)");
  if (system.empty()) bad("--system", "is required");
  const auto& registry = systems::SystemRegistry::builtin();
  if (!registry.has(system)) {
    std::string known;
    for (const auto& id : registry.ids()) known += (known.empty() ? "" : ", ") + id;
    bad("--system", (systems::is_known_system(system) ? "system '" + system + "' is not implemented yet"
                                                      : "unknown system '" + system + "'") +
                        " (available: " + known + ")");
  }
  outcome.strategy = registry.make(system);
  auto& strategy = outcome.strategy;
  if (mode != "timing" && mode != "functional") bad("--mode", "expected timing or functional, got '" + mode + "'");
  if (vm.count("trace-detail") && report_dir.empty()) bad("--trace-detail", "applies only with --report-dir (no trace is written without it)");
  outcome.trace_detail = report_dir.empty() ? report::TraceDetail::kOff : trace_detail_option(trace_detail);

  runtime::RunRequest& req = outcome.req;
  req.system = system;
  req.mode = mode == "timing" ? runtime::Mode::kTiming : runtime::Mode::kFunctional;
  const bool functional = req.mode == runtime::Mode::kFunctional;
  if (!functional && vm.count("weights")) bad("--weights", "applies only with --mode functional");
  if (!functional && vm.count("functional-layers")) bad("--functional-layers", "applies only with --mode functional");
  req.seed = seed;
  req.max_host_memory = host_memory_limit(max_host_memory);

  Lengths lengths;
  runtime::Workload work;
  std::filesystem::path workload_path;
  if (!workload.empty()) {
    if (vm.count("prompt") || vm.count("decode") || vm.count("batch")) {
      bad("--workload", "give either --workload or --prompt/--decode/--batch, not both");
    }
    // Every drawn request is simulated, back to back (simulate_run.h); the first one's lengths
    // stand for the run in the checks below, the workload's bounds are checked once the model is known.
    workload_path = resolve_input(InputKind::kWorkload, workload);
    work = runtime::load_workload(workload_path);
    // A seed given for the run seeds the workload's draws (its file's `seed` otherwise), so a
    // sweep over --seed draws other requests.
    if (vm.count("seed")) {
      work.seed = seed;
      // (functional mode's synthetic weights and tokens follow the seed whatever the lengths)
      if (!work.draws() && !functional) {
        outcome.seed_without_effect = true;
        spdlog::warn("--seed has no effect here: workload '{}' has fixed lengths and draws nothing", work.name);
      }
    }
    req.workload = runtime::draw_requests(work);
    req.workload_name = work.name;
    const auto& first = req.workload.front();
    lengths = {first.prompt, first.decode, first.batch};
  } else {
    // One request in timing mode draws nothing: the seed would be recorded and change no number.
    if (!functional && vm.count("seed")) {
      outcome.seed_without_effect = true;
      spdlog::warn("--seed has no effect here: it seeds functional mode's synthetic weights and tokens and a --workload's draws; a timing run of one request draws nothing");
    }
    // Given or not is what vm says: -1 is also what a user can type.
    if (!vm.count("prompt")) bad("--prompt", "is required without --workload");
    if (prompt < 1) bad("--prompt", "must be >= 1, got " + std::to_string(prompt));
    if (!vm.count("decode")) bad("--decode", "is required without --workload (0 for prefill only)");
    if (decode < 0) bad("--decode", "must be >= 0 (0 for prefill only), got " + std::to_string(decode));
    if (vm.count("batch") && batch < 1) bad("--batch", "must be >= 1");
    // As a workload file's batch: 65537 ran for a minute and reported a 14-minute prefill.
    if (batch > runtime::kMaxBatch) bad("--batch", fmt::format("must be at most {}, got {}", runtime::kMaxBatch, batch));
    lengths = {static_cast<std::uint64_t>(prompt), static_cast<std::uint64_t>(decode),
               static_cast<std::uint64_t>(batch < 1 ? 1 : batch)};
  }
  req.prompt_tokens = lengths.prompt;
  req.decode_tokens = lengths.decode;
  req.batch = lengths.batch;

  const auto soc_path = resolve_input(InputKind::kSoc, soc);
  req.soc_id = soc_path.stem().string();
  // The SoC file and --set overrides form one tree: the SoC's sections describe hardware, the
  // system reads its own options from it; any key nobody read is an error.
  auto tree = config::ConfigTree::load_file(soc_path);
  for (const auto& o : sets) tree.apply_override(o);
  req.soc = hw::parse_soc_spec(tree);
  req.soc.source_file = soc_path.string();
  const auto model_path = resolve_input(InputKind::kModel, model);
  req.model = model::load_model_config(model_path);
  // An output that is one of the inputs would be replaced by the report (a model's config.json
  // given as --json): refused before anything runs.
  std::vector<NamedInput> inputs =
      with_included({{"--soc", soc_path}, {"--model", model_path}, {"--workload", workload_path}, {"--weights", weights}}, "--soc", tree);
  // The files --report-dir gets (add_report_files below).
  std::vector<std::filesystem::path> dir_outputs;
  if (!report_dir.empty()) {
    for (const char* name : {"report.json", "trace.json", "report.html"}) dir_outputs.push_back(std::filesystem::path(report_dir) / name);
    check_outputs_not_folders("--report-dir", report_dir, {"report.json", "trace.json", "report.html"}, "the run's");
  }
  const auto check_outputs_not_inputs = [&] {
    if (!json_file.empty()) check_output_not_input("--json", json_file, inputs);
    for (const auto& out : dir_outputs) check_output_not_input("--report-dir", out, inputs);
  };
  check_outputs_not_inputs();
  auto root = tree.root();
  // model.* settings of the run: the model's trained window stretched for a what-if (shadowAttn's
  // paper runs PhoneLM, trained for 2048 tokens, on 3840- and 4096-token prompts). RoPE positions
  // past the window are computed as any other; the report's resolved configuration records it.
  if (auto ms = root.optional_child("model")) {
    if (ms->has("max_position_embeddings")) {
      req.model.max_context = static_cast<std::uint64_t>(ms->integer("max_position_embeddings", 1, std::int64_t{1} << 24));
    }
  }
  strategy->configure(root, req.soc, req.model);
  // Files the system's options name (shadowAttn's importance_file) are inputs too; and one output
  // must not be another (--json inside --report-dir under one of its names).
  inputs.clear();
  for (auto& file : strategy->input_files()) inputs.push_back({std::move(file.key), std::move(file.path)});
  check_outputs_not_inputs();
  for (const auto& out : dir_outputs) {
    if (!json_file.empty()) check_outputs_differ("--json", json_file, "--report-dir", out);
  }
  // (--functional-layers out of range is left to its own message below.)
  const bool every_layer = !vm.count("functional-layers") || functional_layers == static_cast<std::int64_t>(req.model.layers);
  refuse_unread_scale_keys(root, system, functional, every_layer && req.workload.size() <= 1);
  functional::FunctionalOptions& fopt = outcome.fopt;
  // functional.* settings of the synthetic weights (--set functional.outlier_channels=N ...).
  if (auto f = root.optional_child("functional")) {
    if (!functional) throw config::ConfigError(f->location(), "functional", "settings apply only with --mode functional");
    const bool outlier_keys = f->has("outlier_channels") || f->has("outlier_scale");
    if (!weights.empty() && outlier_keys) {
      throw config::ConfigError(f->location(), "functional", "outlier settings shape synthetic weights; they do not apply with --weights");
    }
    if (f->has("outlier_channels")) {
      fopt.synthetic.outlier_channels = static_cast<std::uint32_t>(f->integer("outlier_channels", 0, static_cast<std::int64_t>(req.model.hidden)));
    }
    if (f->has("outlier_scale")) {
      fopt.synthetic.outlier_scale = f->number("outlier_scale", 0, 1e6);
      if (!(fopt.synthetic.outlier_scale > 0)) {
        throw config::ConfigError(f->location_of("outlier_scale"), "functional.outlier_scale", "must be > 0");
      }
    }
  }
  // workload.* settings of the run: a co-running GPU render load.
  if (auto w = root.optional_child("workload")) {
    if (w->has("gpu_background")) req.gpu_background_frame = w->time("gpu_background");
    if (w->has("fps")) req.gpu_background_fps = w->number("fps", 1, 1000);  // a bad value is named first
    if (!w->has("gpu_background")) w->refuse({"fps"}, "applies with workload.gpu_background (the frame it repeats)");
    // A frame as long as its period keeps the GPU busy for ever: frames queue faster than they run
    // (no preemption), the request waits behind a backlog that grows without bound.
    const double period_s = 1.0 / req.gpu_background_fps;
    if (req.gpu_background_frame > 0 && to_seconds(req.gpu_background_frame) >= period_s) {
      throw config::ConfigError(w->has("gpu_background") ? w->location_of("gpu_background") : w->location_of("fps"), "workload.gpu_background",
                                fmt::format("a frame of {:.6g} ms every {:.6g} ms (1/fps) leaves the GPU no idle time and its frames "
                                            "queue without end; must be shorter than 1/fps",
                                            to_ms(req.gpu_background_frame), period_s * 1e3));
    }
  }
  check_all_options_read(tree, system);
  outcome.soc_tree = std::make_shared<const config::ConfigTree>(std::move(tree));
  if (!req.workload.empty() && work.prompt.max() + work.decode.max() > req.model.max_context) {
    // At the line of the longer of the two ranges: the one to shorten (or a longer-context model).
    const bool prompt_alone = work.prompt.max() > req.model.max_context || work.prompt.max() >= work.decode.max();
    throw config::ConfigError(prompt_alone ? work.prompt_at : work.decode_at, prompt_alone ? "prompt" : "decode",
                              "workload '" + work.name + "' allows prompt + decode up to " + std::to_string(work.prompt.max()) + " + " +
                                  std::to_string(work.decode.max()) + " tokens, beyond " + req.model.id + "'s context of " +
                                  std::to_string(req.model.max_context) + " (--model " + req.model.id + ")");
  }
  config::note_run_work(fmt::format("--model {} (about {:.3g} parameters, {} layer{}) with {}", model, static_cast<double>(req.model.total_params()),
                                    req.model.layers, req.model.layers == 1 ? "" : "s",
                                    req.workload.empty() ? fmt::format("--prompt {} --decode {} --batch {}", req.prompt_tokens, req.decode_tokens, req.batch)
                                                         : "--workload " + workload) +
                      // A rate set too low (a bandwidth, a clock, an efficiency) stretches any work past 64 bits.
                      (sets.empty() ? std::string() : fmt::format(", with --set {}", fmt::join(sets, " --set "))));
  if (req.prompt_tokens + req.decode_tokens > req.model.max_context) {
    // The option that pushed the request past the window: --decode when the prompt alone fits.
    bad(req.prompt_tokens <= req.model.max_context ? "--decode" : "--prompt", "prompt + decode = " + std::to_string(req.prompt_tokens + req.decode_tokens) +
                        " tokens exceeds " + req.model.id + "'s context of " + std::to_string(req.model.max_context));
  }
  if (const std::uint64_t w = req.model.sliding_window; w > 0) {
    const std::uint64_t longest = req.workload.empty() ? req.prompt_tokens + req.decode_tokens : work.prompt.max() + work.decode.max();
    if (longest > w) {
      spdlog::warn("{} attends over a sliding window of {} tokens, which socsim does not model: attention past it is costed (and "
                   "computed) over the whole context of up to {} tokens",
                   req.model.id, w, longest);
    }
  }

  if (functional) {
    if (vm.count("functional-layers") && (functional_layers < 1 || static_cast<std::uint64_t>(functional_layers) > req.model.layers)) {
      bad("--functional-layers", "must be in [1, " + std::to_string(req.model.layers) + "] (" + req.model.id + "'s layers), got " +
                                     std::to_string(functional_layers));
    }
    if (req.model.rope_scaling.kind == model::RopeScaling::Kind::kOther) {
      bad("--mode", req.model.id + "'s rope_scaling type '" + req.model.rope_scaling.name +
                        "' is not computed by functional mode (linear and llama3 are); timing mode does not depend on it");
    }
    fopt.weights_file = weights;
    fopt.layers = vm.count("functional-layers") ? static_cast<std::uint64_t>(functional_layers) : 0;
  }
  outcome.functional = functional;
  outcome.workload = work;
  outcome.report_dir = report_dir;
  outcome.json_file = json_file;
  return setup;
}

bool is_help(const RunSetup& setup) { return setup.help; }
bool seed_without_effect(const RunSetup& setup) { return setup.seed_without_effect; }

void set_trace_detail(RunSetup& setup, report::TraceDetail detail) { setup.trace_detail = detail; }
void set_host_memory_limit(RunSetup& setup, std::uint64_t bytes) { setup.req.max_host_memory = bytes; }

namespace {

// What the trace holds when a limit cut it short (report.json and the HTML page say so); nothing
// otherwise, so a report does not depend on whether a trace was written beside it.
void note_trace_limits(const report::TraceRecorder& trace, report::RunReport& r) {
  if (!trace.hardware_until() && trace.plan_dropped() == 0) return;
  static constexpr const char* kNames[] = {"off", "summary", "auto", "full"};
  nlohmann::ordered_json t = {{"detail", kNames[static_cast<int>(trace.detail())]}};
  if (const auto until = trace.hardware_until()) {
    t["hardware_detail_until_ms"] = static_cast<double>(*until) / 1e9;
    t["note"] = "hardware spans stopped after " + std::to_string(report::TraceRecorder::kDefaultSpanLimit) +
                "; jobs only from then on (--trace-detail full keeps all)";
  }
  if (trace.plan_dropped() > 0) {
    t["job_spans_dropped"] = trace.plan_dropped();
    t["note"] = "the trace holds the first " + std::to_string(report::TraceRecorder::kDefaultSpanLimit) +
                " job spans (--trace-detail full keeps all)";
  }
  r.extra["trace"] = t;
}

}  // namespace

RunResult simulate_prepared(RunSetup& setup) {
  RunResult result;
  if (!setup.req.workload.empty()) {
    systems::check_workload_fits_device_memory(setup.req.soc, setup.req.model, setup.req.system, setup.strategy->weight_bits(), setup.workload,
                                               setup.req.workload);
  }
  std::optional<nlohmann::ordered_json> accuracy;
  std::optional<nlohmann::ordered_json> data_driven;
  runtime::RunRequest req = setup.req;
  if (setup.functional) {
    // A run too large for the host is refused before minutes of numerics, not after. The request
    // functional mode measures runs whole (no decode windows), so estimate it so.
    if (const std::string why = setup.strategy->functional_unsupported(); !why.empty()) bad("--mode", why);
    runtime::RunRequest whole = setup.req;
    whole.decode_window = 0;
    const std::vector<runtime::Request> requests =
        whole.workload.empty() ? std::vector<runtime::Request>{{whole.prompt_tokens, whole.decode_tokens, whole.batch}} : whole.workload;
    // The device's memory first, as timing mode checks it: the numerics would allocate the
    // weights before any simulation could refuse them.
    for (const auto& r : requests) {
      systems::check_fits_device_memory(whole.soc, whole.model, whole.system, setup.strategy->weight_bits(), r.prompt + r.decode, r.batch);
    }
    runtime::check_estimated_host_memory(*setup.strategy, whole, requests);
    // The activations of the request functional mode computes (the first) take memory of their
    // own, held within one layer: a batch too large for the limit is refused now, not after a
    // minute of numerics and most of the host's memory.
    if (const std::uint64_t limit = setup.req.max_host_memory; limit > 0) {
      const auto& first = requests.front();
      const double need = functional::activation_bytes_lower_bound(whole.model, {first.prompt, first.decode, first.batch});
      if (need > static_cast<double>(limit)) {
        bad("--max-host-memory", fmt::format("functional mode would hold at least {:.0f} MiB of activations for {} sequence(s) of {} tokens "
                                             "(the FP32 reference's MLP outputs and the residual streams), more than the limit of {} MiB; "
                                             "use a smaller --batch, --prompt or --decode, or raise --max-host-memory",
                                             need / (1 << 20), first.batch, first.prompt + first.decode, limit >> 20));
      }
    }
    // The numerics run first (a bad weights file fails before any simulation); the quantities
    // they measure on the data replace the modelled ones in the timed run's plan, and a timing
    // mode run beside it says what they changed. --max-host-memory holds for them too, checked
    // as each layer's weights are made and before each large tensor is allocated.
    auto f = [&] {
      const ScopedHostMemoryLimit limit(setup.req.max_host_memory);
      try {
        return functional::run_functional_with_data(setup.req, *setup.strategy, setup.fopt);
      } catch (const HostMemoryExceeded& e) {
        throw config::ConfigError({"command line", 0, 0}, "--max-host-memory",
                                  std::string(e.what()) + " while computing the functional forward pass (one layer's weights at a time" +
                                      "); use a smaller --batch, --prompt or --decode, --functional-layers N or a smaller model, or raise --max-host-memory");
      }
    }();
    accuracy = std::move(f.accuracy);
    req.data_driven = std::move(f.data);
    if (req.data_driven.empty()) {
      data_driven = nlohmann::ordered_json{{"quantities", "none"},
                                           {"note", "no quantity of this system's plan depends on the data yet: timing equals timing mode"}};
    } else {
      report::TraceRecorder untraced(report::TraceDetail::kOff);
      const report::RunReport plain = runtime::simulate_run(setup.req, *setup.strategy, untraced);
      data_driven = req.data_driven.summary;
      (*data_driven)["timing_mode"] = {{"prefill_ms", plain.prefill_ms.value_or(0)}, {"total_ms", plain.total_ms.value_or(0)},
                                       {"energy_j", plain.energy_j.value_or(0)}};
    }
  }
  result.trace = report::TraceRecorder(setup.trace_detail);
  result.report = runtime::simulate_run(req, *setup.strategy, result.trace);
  note_trace_limits(result.trace, result.report);
  result.report.accuracy = accuracy;
  result.report.data_driven = data_driven;
  result.soc_tree = setup.soc_tree;
  const auto& m = setup.req.model;
  result.model_text = fmt::format(
      "id: {}\nmodel_type: {}\nlayers: {}\nhidden: {}\nintermediate: {}\nheads: {}\nkv_heads: {}\nhead_dim: {}\nvocab: {}\nmax_context: {}\n"
      "parameters: {:.3f} B\n",
      m.id, m.model_type, m.layers, m.hidden, m.intermediate, m.heads, m.kv_heads, m.head_dim, m.vocab, m.max_context,
      static_cast<double>(m.total_params()) / 1e9);
  return result;
}

namespace {
constexpr std::size_t kLargeTraceBytes = 200u << 20;  // a trace past this is said to be large
}  // namespace

void add_report_files(const RunResult& result, const std::filesystem::path& dir, OutputFiles& out) {
  out.add(dir / "report.json", report::json_text(report::to_json(result.report), 2) + "\n");
  std::ostringstream trace_json, html;
  report::write_chrome_trace(result.trace, trace_json);
  report::write_html_report(result.report, result.trace, {result.soc_tree ? result.soc_tree->dump_yaml() : std::string(), result.model_text}, html);
  std::string trace_text = std::move(trace_json).str();  // moved out: a trace can be hundreds of MB
  // What the trace leaves out, or its size, said where the user looks (report.json says it too).
  if (result.report.extra.contains("trace")) {
    spdlog::warn("{}: {}", (dir / "trace.json").string(), result.report.extra["trace"].value("note", std::string("cut short")));
  }
  if (trace_text.size() > kLargeTraceBytes) {
    spdlog::warn("{}: {:.0f} MB of trace (--trace-detail full keeps every span); Perfetto opens it slowly, --trace-detail summary keeps the jobs only",
                 (dir / "trace.json").string(), static_cast<double>(trace_text.size()) / 1e6);
  }
  out.add(dir / "trace.json", std::move(trace_text));
  out.add(dir / "report.html", std::move(html).str());
}

nlohmann::ordered_json run_to_json(const std::vector<std::string>& args) {
  auto setup = prepare_run(args);
  if (setup->help) throw config::ConfigError(kCommandLine, "--help", "has no JSON result");
  return report::to_json(simulate_prepared(*setup).report);
}

int run_command(const std::vector<std::string>& args) {
  // A long run (a million requests, a one-token chunk, shadowAttn's importance calibrated while the
  // system is configured) says what it is doing after 10 s, then every second on a terminal (in
  // place) or every 30 s in a log.
  const bool terminal = isatty(STDERR_FILENO) != 0;
  std::optional<ScopedRunProgress> progress(std::in_place, 10.0, terminal ? 1.0 : 30.0, stderr, terminal);
  auto setup = prepare_run(args);
  if (setup->help) {
    std::cout << setup->help_text;
    return 0;
  }
  // A functional run of a real model takes seconds to minutes: a bar on a terminal (nothing in
  // logs or pipes). Sweeps run many at once on threads and draw their own bar.
  std::unique_ptr<ProgressBar> bar;
  if (setup->functional) {
    setup->fopt.progress = [&bar](std::uint64_t done, std::uint64_t total) {
      if (!bar) bar = std::make_unique<ProgressBar>("functional steps", total);
      bar->update(done);
      if (done == total) bar.reset();  // ends the line before the summary prints
    };
  }
  const RunResult o = simulate_prepared(*setup);
  progress.reset();  // ends an in-place line before the summary
  const auto& result = o.report;
  const auto& json_file = setup->json_file;
  const auto& report_dir = setup->report_dir;
  // Everything is computed; only now are files written.
  OutputFiles out;
  if (!json_file.empty()) out.add(json_file, report::json_text(report::to_json(result), 2) + "\n");
  if (!report_dir.empty()) add_report_files(o, report_dir, out);
  out.write_all();
  std::cout << report::summary_text(result);
  for (const auto& f : out.paths()) std::cout << "  wrote " << f.string() << "\n";
  return 0;
}

}  // namespace socsim::cli
