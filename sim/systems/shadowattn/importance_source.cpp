#include "sim/systems/shadowattn/importance_source.h"

#include <algorithm>
#include <filesystem>
#include <string>

#include <spdlog/spdlog.h>

#include "sim/config/config_error.h"
#include "sim/core/run_progress.h"
#include "sim/systems/shadowattn/importance_calibration.h"
#include "sim/systems/shadowattn/importance_file.h"

namespace socsim::systems::shadowattn {

Importance resolve_importance(const Options& o, const model::ModelConfig& m, nlohmann::ordered_json& info) {
  using Source = Options::ImportanceSource;
  info = {{"source", "synthetic"}};
  Importance imp = synthetic_importance(o.seed, m.layers, m.heads);
  const auto spread = [](const std::vector<double>& v, std::size_t n) {
    const auto [mn, mx] = std::minmax_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
    return nlohmann::ordered_json{{"min", *mn}, {"max", *mx}};
  };
  const auto describe = [&](std::string source, const CalibratedImportance& cal, const CalibrationOptions& co) {
    info = {{"source", std::move(source)},
            {"layers_calibrated", cal.layers_calibrated},
            {"sequences", co.sequences},
            {"tokens", co.tokens},
            {"scored_positions", co.scored},
            {"vocab_rows", std::min(co.vocab_rows == 0 ? m.vocab : co.vocab_rows, m.vocab)},
            {"base_entropy_nats", cal.base_entropy},
            {"head_kl_nats", spread(cal.importance.head, cal.layers_calibrated * m.heads)},
            {"layer_kl_nats", spread(cal.importance.layer, cal.layers_calibrated)}};
  };
  std::filesystem::path file = o.importance_file;
  if (file.empty() && (o.importance == Source::kAuto || o.importance == Source::kOffline)) file = find_importance_file(m.id);
  if (o.importance == Source::kOffline && file.empty()) {
    throw config::ConfigError(o.importance_where, "shadowattn.importance",
                              "no offline calibration for model '" + m.id + "' (models/shadowattn/" + m.id +
                                  ".importance.json); write one with `socsim calibrate --model " + m.id +
                                  " --out FILE` and pass it as shadowattn.importance_file, or use importance=calibrated|synthetic");
  }
  if (!file.empty()) {
    const auto off = read_importance_file(file, m);
    imp = off.calibration.importance;
    describe("offline file " + file.filename().string() + " (calibrated in functional mode on synthetic weights, seed " +
                 std::to_string(off.seed) + ")",
             off.calibration, off.options);
  } else if (o.importance == Source::kCalibrated) {
    CalibrationOptions co;
    if (o.calibration_layers > m.layers) {
      // Not clamped in silence: the user asked for layers the model does not have.
      throw config::ConfigError({"--set", 0, 0}, "shadowattn.calibration_layers",
                                "model '" + m.id + "' has " + std::to_string(m.layers) + " layers, got " + std::to_string(o.calibration_layers) +
                                    " (0 = all)");
    }
    co.layers = o.calibration_layers == 0 ? m.layers : o.calibration_layers;
    // Minutes for a whole model (each layer reruns every ablated stream so far): said as it goes.
    co.on_pass = [](std::uint64_t layer, std::uint64_t layers, std::uint64_t pass, std::uint64_t passes) {
      progress_functional_calibration("calibrating shadowAttn's head importance", static_cast<std::uint32_t>(layer), static_cast<std::uint32_t>(layers),
                                      pass, passes);
    };
    const auto& cal = cached_calibration(m, o.seed, co);
    imp = cal.importance;
    describe("calibrated (functional mode, synthetic weights, FP32 reference, KL to the unablated model)", cal, co);
  } else if (o.importance == Source::kAuto) {
    spdlog::warn("shadowattn: model '{}' has no offline importance calibration (models/shadowattn/{}.importance.json): per-head "
                 "ratios from seeded synthetic importance (shadowattn.importance=synthetic)",
                 m.id, m.id);
    info["source"] = "synthetic (no offline calibration for " + m.id + ")";
  }
  return imp;
}

}  // namespace socsim::systems::shadowattn
