#include "sim/systems/shadowattn/importance_file.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "sim/config/config_error.h"
#include "sim/config/input_file.h"
#include "sim/config/unique_key_json.h"

namespace socsim::systems::shadowattn {

namespace fs = std::filesystem;

namespace {

const char* kMethod =
    "shadowAttn Eq. 3 importance measured in functional mode on synthetic weights (SyntheticWeights(model, seed)): "
    "KL of the next-token distribution to the unablated model's when a head's (a layer's) o_proj rows are zeroed, "
    "FP32 reference forward over seeded tokens";

[[noreturn]] void bad(const fs::path& file, const std::string& key, const std::string& message) {
  throw config::ConfigError({file.string(), 0, 0}, key, message);
}

const nlohmann::json& member(const nlohmann::json& j, const fs::path& file, const std::string& key) {
  if (!j.is_object() || !j.contains(key)) bad(file, key, "missing");
  return j[key];
}

// `prefix` names the enclosing object in errors ("calibration.").
std::uint64_t whole(const nlohmann::json& j, const fs::path& file, const std::string& key, const std::string& prefix = "") {
  if (!j.is_object() || !j.contains(key)) bad(file, prefix + key, "missing");
  const auto& v = j[key];
  if (!v.is_number_unsigned()) bad(file, prefix + key, "expected a whole number >= 0, got " + v.dump());
  return v.get<std::uint64_t>();
}

double importance_value(const nlohmann::json& v, const fs::path& file, const std::string& key) {
  if (!v.is_number()) bad(file, key, "expected a number, got " + v.dump());
  const double x = v.get<double>();
  // A loss rise in nats. Head and layer importances are multiplied and summed over every head
  // (Eq. 3): beyond 1e150 the products and their sum leave double's range.
  if (!std::isfinite(x) || x < 0 || x > 1e150) bad(file, key, "expected a finite importance from 0 to 1e150 (a loss rise in nats), got " + v.dump());
  return x;
}

}  // namespace

nlohmann::ordered_json importance_json(const model::ModelConfig& m, const OfflineImportance& o) {
  const auto& c = o.calibration;
  nlohmann::ordered_json heads = nlohmann::ordered_json::array();
  for (std::uint64_t l = 0; l < m.layers; ++l) {
    heads.push_back(std::vector<double>(c.importance.head.begin() + static_cast<std::ptrdiff_t>(l * m.heads),
                                        c.importance.head.begin() + static_cast<std::ptrdiff_t>((l + 1) * m.heads)));
  }
  return {{"model", m.id},
          {"seed", o.seed},
          {"method", kMethod},
          {"calibration",
           {{"sequences", o.options.sequences}, {"tokens", o.options.tokens}, {"scored", o.options.scored}, {"vocab_rows", o.options.vocab_rows}}},
          {"layers", m.layers},
          {"heads", m.heads},
          {"layers_calibrated", c.layers_calibrated},
          {"layer_passes", c.layer_passes},
          {"base_entropy_nats", c.base_entropy},
          {"layer_importance", c.importance.layer},
          {"head_importance", heads}};
}

OfflineImportance read_importance_file(const fs::path& file, const model::ModelConfig& m) {
  // A folder opens as a stream on Linux and only fails to read, a FIFO blocks, a device reads
  // without end: say what it is. A calibration is a few KB per layer (64 MiB is generous).
  if (const auto why = config::input_file_problem(file, {"an importance file", 64ull << 20, false})) {
    bad(file, "shadowattn.importance_file", "cannot read the file: it " + *why);
  }
  std::ifstream in(file);
  if (!in) bad(file, "shadowattn.importance_file", "cannot open the file" + config::errno_reason());
  std::stringstream text;
  text << in.rdbuf();
  return parse_importance(text.str(), file, m);
}

OfflineImportance parse_importance(std::string_view text, const fs::path& file, const model::ModelConfig& m) {
  nlohmann::json j;
  try {
    j = config::parse_json_unique_keys(text);
  } catch (const config::DuplicateJsonKey& e) {
    throw config::ConfigError({file.string(), e.line(), 0}, e.key(), config::duplicate_key_message(e));
  } catch (const nlohmann::json::exception& e) {
    bad(file, "(file)", std::string("not valid JSON: ") + e.what());
  }
  OfflineImportance o;
  const auto& model = member(j, file, "model");
  if (!model.is_string()) bad(file, "model", "expected the model id as a string");
  o.model = model.get<std::string>();
  // Importance depends on everything in the model's config (norms, activation, RoPE), not only on
  // the layer and head counts checked below: another model's file is refused even when they match.
  if (o.model != m.id) {
    bad(file, "model", "calibrated for model '" + o.model + "', but this run's model is '" + m.id +
                           "' (calibrate it with `socsim calibrate --model " + m.id + " --out FILE`)");
  }
  o.seed = whole(j, file, "seed");
  const auto& cal = member(j, file, "calibration");
  o.options.sequences = whole(cal, file, "sequences", "calibration.");
  o.options.tokens = whole(cal, file, "tokens", "calibration.");
  o.options.scored = whole(cal, file, "scored", "calibration.");
  o.options.vocab_rows = whole(cal, file, "vocab_rows", "calibration.");
  const std::uint64_t layers = whole(j, file, "layers"), heads = whole(j, file, "heads");
  if (layers != m.layers || heads != m.heads) {
    bad(file, "layers", "calibrated for " + std::to_string(layers) + " layers x " + std::to_string(heads) + " heads, but model '" + m.id +
                            "' has " + std::to_string(m.layers) + " x " + std::to_string(m.heads));
  }
  o.options.layers = o.calibration.layers_calibrated = whole(j, file, "layers_calibrated");
  if (o.calibration.layers_calibrated < 1 || o.calibration.layers_calibrated > layers) {
    bad(file, "layers_calibrated", "expected 1 to " + std::to_string(layers) + " (the model's layers), got " +
                                       std::to_string(o.calibration.layers_calibrated));
  }
  o.calibration.layer_passes = whole(j, file, "layer_passes");
  const auto& entropy = member(j, file, "base_entropy_nats");
  if (!entropy.is_number()) bad(file, "base_entropy_nats", "expected a number");
  o.calibration.base_entropy = entropy.get<double>();
  const auto& li = member(j, file, "layer_importance");
  if (!li.is_array() || li.size() != layers) bad(file, "layer_importance", "expected " + std::to_string(layers) + " numbers");
  for (std::size_t l = 0; l < li.size(); ++l) {
    o.calibration.importance.layer.push_back(importance_value(li[l], file, "layer_importance[" + std::to_string(l) + "]"));
  }
  const auto& hi = member(j, file, "head_importance");
  if (!hi.is_array() || hi.size() != layers) bad(file, "head_importance", "expected " + std::to_string(layers) + " rows");
  for (std::size_t l = 0; l < hi.size(); ++l) {
    const std::string key = "head_importance[" + std::to_string(l) + "]";
    if (!hi[l].is_array() || hi[l].size() != heads) bad(file, key, "expected " + std::to_string(heads) + " numbers");
    for (std::size_t h = 0; h < heads; ++h) {
      o.calibration.importance.head.push_back(importance_value(hi[l][h], file, key + "[" + std::to_string(h) + "]"));
    }
  }
  return o;
}

fs::path find_importance_file(const std::string& model_id) {
  for (const auto& root : {fs::current_path(), fs::path(SOCSIM_SOURCE_DIR)}) {
    const fs::path p = root / "models" / "shadowattn" / (model_id + ".importance.json");
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p;
  }
  return {};
}

}  // namespace socsim::systems::shadowattn
