// `socsim calibrate`: a system's offline calibration, written to a file the system then reads.
// Only shadowattn has one: its Eq. 3 head and layer importance, measured by ablation in
// functional mode on the model's synthetic weights over every layer (importance_calibration.h;
// the file format in importance_file.h). The paper's calibration runs once, offline; so does this
// (qwen2-0.5b: about 3 minutes on two cores), and runs then read the file at no cost.
#include "sim/cli/program_options.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "sim/report/json_text.h"
#include "sim/cli/command.h"
#include "sim/cli/input_paths.h"
#include "sim/cli/output_files.h"
#include "sim/cli/host_memory_option.h"
#include "sim/cli/progress_bar.h"
#include "sim/core/host_memory.h"
#include "sim/core/host_work.h"
#include "sim/functional/functional_run.h"
#include "sim/core/run_progress.h"
#include "sim/config/config_error.h"
#include "sim/model/model_config.h"
#include "sim/systems/shadowattn/calibration.h"
#include "sim/systems/shadowattn/importance_calibration.h"
#include "sim/systems/shadowattn/importance_file.h"

namespace po = boost::program_options;

namespace socsim::cli {

int calibrate_command(const std::vector<std::string>& args) {
  po::options_description opts("socsim calibrate options");
  std::string system = "shadowattn", model, out, max_host_memory;
  std::uint64_t seed = 1, layers = 0, sequences = 2, tokens = 32, scored = 8, vocab_rows = 4096;
  opts.add_options()
      ("help,h", "this message")
      ("system", po::value(&system)->default_value(system), "the system to calibrate (shadowattn)")
      ("model", po::value(&model), "model id or config.json path")
      ("out", po::value(&out), "the calibration file to write (JSON)")
      ("seed", po::value(&seed)->default_value(seed), "synthetic weights and tokens")
      ("layers", po::value(&layers)->default_value(layers), "decoder layers calibrated (0 = all; later layers get the means)")
      ("sequences", po::value(&sequences)->default_value(sequences), "seeded token sequences")
      ("tokens", po::value(&tokens)->default_value(tokens), "tokens per sequence")
      ("scored", po::value(&scored)->default_value(scored), "last positions of each sequence whose prediction is scored")
      ("vocab-rows", po::value(&vocab_rows)->default_value(vocab_rows), "head rows in the softmax (0 = the whole vocabulary)")
      ("max-host-memory", po::value(&max_host_memory), "stop with exit 2 when the calibration holds more host memory than this (default: half the machine's memory; 0 = no limit), e.g. 4GiB");
  po::variables_map vm;
  parse_options(args, opts, vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << "usage: socsim calibrate --model M --out FILE [--system shadowattn] [--seed N] [--layers N] ...\n\n"
                 "shadowattn: measures Eq. 3's head and layer importance by ablation in functional mode on the\n"
                 "model's synthetic weights (KL of the next-token distribution to the unablated model's when a\n"
                 "head's or a layer's o_proj rows are zeroed), prints a summary and writes FILE, which\n"
                 "`--set shadowattn.importance_file=FILE` reads (models/shadowattn/<model>.importance.json\n"
                 "is read by default). The cost grows with heads x layers^2.\n\n"
              << opts;
    return 0;
  }
  const config::SourceLocation where{"command line", 0, 0};
  if (system != "shadowattn") throw config::ConfigError(where, "--system", "only shadowattn has an offline calibration, got '" + system + "'");
  if (model.empty()) throw config::ConfigError(where, "--model", "is required (a model id or config.json path)");
  if (out.empty()) throw config::ConfigError(where, "--out", "is required (the calibration file to write)");
  check_output_path("--out", out, false);  // before the ablation forwards, not after
  const std::uint64_t memory_limit = host_memory_limit(max_host_memory);
  const auto model_path = resolve_input(InputKind::kModel, model);
  check_output_not_input("--out", out, {{"--model", model_path}});
  const model::ModelConfig m = model::load_model_config(model_path);
  if (layers > m.layers) throw config::ConfigError(where, "--layers", fmt::format("model '{}' has {} layers, got {}", m.id, m.layers, layers));
  // Each named as itself (a --sequences 0 blamed --tokens).
  if (sequences == 0) throw config::ConfigError(where, "--sequences", "must be at least 1");
  if (scored == 0) throw config::ConfigError(where, "--scored", "must be at least 1 (the positions whose head distributions are compared)");
  if (tokens < scored) throw config::ConfigError(where, "--tokens", fmt::format("must be at least --scored ({}), got {}", scored, tokens));

  // The calibration runs the model on these sequences: no longer than its window, no more head
  // rows than its vocabulary (both ran to GBs or were accepted in silence).
  if (tokens > m.max_context) {
    throw config::ConfigError(where, "--tokens", fmt::format("{} tokens{} exceed {}'s context of {}", tokens,
                                                             vm["tokens"].defaulted() ? " (the default)" : "", m.id, m.max_context));
  }
  // The default's 4096 rows on a model of fewer: the whole vocabulary (it blamed an option never given).
  if (vocab_rows > m.vocab && vm["vocab-rows"].defaulted()) vocab_rows = 0;
  if (vocab_rows > m.vocab) {
    throw config::ConfigError(where, "--vocab-rows", fmt::format("model '{}' has {} vocabulary rows, got {} (0 = all)", m.id, m.vocab, vocab_rows));
  }
  // A softmax over one row is certain: no entropy, no divergence, ratios from nothing measured
  // (it wrote such a file with exit 0).
  if ((vocab_rows == 0 ? m.vocab : vocab_rows) < 2) {
    throw config::ConfigError(where, "--vocab-rows",
                              fmt::format("the head's softmax needs at least 2 rows to measure anything, got {} ({}; 0 = the whole vocabulary)",
                                          vocab_rows == 0 ? m.vocab : vocab_rows, vocab_rows == 0 ? "the model's vocabulary" : "--vocab-rows"));
  }

  // The forwards hold every sequence's activations at once: a count past the limit is refused now,
  // not after minutes and most of the host's memory.
  if (memory_limit > 0) {
    const double need = functional::activation_bytes_lower_bound(m, {tokens - scored + 1, scored - 1, sequences});
    if (need > static_cast<double>(memory_limit)) {
      throw config::ConfigError(where, "--sequences",
                                fmt::format("the calibration would hold at least {:.0f} MiB of activations for {} sequence(s) of {} tokens, more than "
                                            "--max-host-memory's {} MiB; use fewer --sequences or --tokens, or raise --max-host-memory",
                                            need / (1 << 20), sequences, tokens, memory_limit >> 20));
    }
  }

  systems::shadowattn::OfflineImportance off;
  off.model = m.id;
  off.seed = seed;
  off.options.layers = layers;
  off.options.sequences = sequences;
  off.options.tokens = tokens;
  off.options.scored = scored;
  off.options.vocab_rows = vocab_rows;
  const std::uint64_t n = layers == 0 ? m.layers : layers;
  const std::uint64_t passes = systems::shadowattn::calibration_layer_passes(n, m.heads);
  // Known before it runs: hours of ablation forwards (attention grows with the square of --tokens:
  // 16,384 ran silent for minutes, one layer pass at a time) are refused with their size, minutes
  // announced.
  const double expected_s = systems::shadowattn::calibration_host_seconds(m, off.options);
  const std::string work = fmt::format("{} layer passes ({} layer(s), each of the {} heads and each layer's attention ablated) over {} sequence(s) of {} tokens",
                                       passes, n, m.heads, sequences, tokens);
  if (expected_s > kMaxCommandHostSeconds) {
    // Blamed on an option the user gave (the defaults alone are minutes).
    const char* raised = !vm["tokens"].defaulted() ? "--tokens" : !vm["sequences"].defaulted() ? "--sequences" : !vm["layers"].defaulted() ? "--layers" : "--tokens";
    throw config::ConfigError(where, raised,
                              fmt::format("the calibration would run {}: about {:.1f} h on a 2-core machine, more than a command takes ({:.1f} h); "
                                          "use fewer --tokens, --sequences or --layers",
                                          work, expected_s / 3600, kMaxCommandHostSeconds / 3600));
  }
  if (expected_s > 60) fmt::print(stderr, "socsim: calibrating: {}: about {:.0f} min on a 2-core machine\n", work, expected_s / 60);
  ProgressBar bar("layer passes", passes);
  // A terminal has the bar; a log or a pipe gets a line after 10 s and every 30 s (it was silent
  // for the minutes a default calibration takes).
  const ScopedRunProgress logged(10.0, 30.0, stderr, false);
  off.options.on_pass = [&bar](std::uint64_t layer, std::uint64_t layers_total, std::uint64_t pass, std::uint64_t passes_total) {
    bar.update(pass);
    if (!bar.enabled()) {
      progress_functional_calibration("shadowAttn's head and layer importance", static_cast<std::uint32_t>(layer),
                                      static_cast<std::uint32_t>(layers_total), pass, passes_total);
    }
  };
  const auto t0 = std::chrono::steady_clock::now();
  {
    const ScopedHostMemoryLimit limit(memory_limit);  // checked as layers and large tensors are made
    try {
      off.calibration = systems::shadowattn::cached_calibration(m, seed, off.options);
    } catch (const HostMemoryExceeded& e) {
      throw config::ConfigError(where, "--max-host-memory", std::string(e.what()) + " while calibrating; use fewer --sequences or --tokens, or raise --max-host-memory");
    }
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  off.options.on_pass = nullptr;

  const auto& imp = off.calibration.importance;
  const auto ratios = systems::shadowattn::head_ratios(imp.head, imp.layer, m.heads, 0.2, 4.0);
  const auto [hmin, hmax] = std::minmax_element(imp.head.begin(), imp.head.end());
  const auto [rmin, rmax] = std::minmax_element(ratios.begin(), ratios.end());
  std::cout << fmt::format("shadowattn importance for {} (seed {}): {} of {} layers calibrated, {} layer passes, {:.1f} s\n", m.id, seed,
                           off.calibration.layers_calibrated, m.layers, off.calibration.layer_passes, wall)
            << fmt::format("  head KL {:.3g} .. {:.3g} nats (base entropy {:.3f} nats); ratios at sparsity 0.2, clamp 4: {:.3f} .. {:.3f}\n",
                           *hmin, *hmax, off.calibration.base_entropy, *rmin, *rmax);
  OutputFiles files;
  files.add(out, report::json_text(systems::shadowattn::importance_json(m, off), 1) + "\n");
  files.write_all();
  std::cout << "wrote " << out << "\n";
  return 0;
}

}  // namespace socsim::cli
