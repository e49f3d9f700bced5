#include "sim/systems/shadowattn/importance_file.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/counted.h"
#include "sim/config/config_error.h"
#include "sim/config/input_file.h"
#include "sim/config/utf8_text.h"
#include "sim/config/unique_key_json.h"

namespace socsim::systems::shadowattn {

namespace fs = std::filesystem;

namespace {

const char* kMethod =
    "shadowAttn Eq. 3 importance measured in functional mode on synthetic weights (SyntheticWeights(model, seed)): "
    "KL of the next-token distribution to the unablated model's when a head's (a layer's) o_proj rows are zeroed, "
    "FP32 reference forward over seeded tokens";

// The file and its text: an error names the line of the key it is about.
struct Source {
  const fs::path& file;
  std::string_view text;
};

// At the line of the key's own name ("calibration.tokens" at "tokens" after "calibration",
// "head_importance[3][1]" at "head_importance"): one search each, never a rescan per candidate.
[[noreturn]] void bad(const Source& src, const std::string& key, const std::string& message) {
  const std::string name = key.substr(0, key.find('['));
  const auto dot = name.rfind('.');
  std::size_t from = 0;
  if (dot != std::string::npos) from = std::min(src.text.find("\"" + name.substr(0, dot) + "\""), src.text.size());
  const int line = config::json_key_line(src.text, dot == std::string::npos ? name : name.substr(dot + 1), 1, from);
  throw config::ConfigError({src.file.string(), line, 0}, key, message);
}

const nlohmann::json& member(const nlohmann::json& j, const Source& src, const std::string& key) {
  if (!j.is_object() || !j.contains(key)) bad(src, key, "missing");
  return j[key];
}

// `prefix` names the enclosing object in errors ("calibration.").
std::uint64_t whole(const nlohmann::json& j, const Source& src, const std::string& key, const std::string& prefix = "") {
  if (!j.is_object() || !j.contains(key)) bad(src, prefix + key, "missing");
  const auto& v = j[key];
  if (!v.is_number_unsigned()) bad(src, prefix + key, "expected a whole number >= 0, got " + v.dump());
  return v.get<std::uint64_t>();
}

// Keys the format does not have are refused, as in model and SoC files: a misspelt key would
// otherwise be a silent default, and a stray one a file nobody checked.
void only_keys(const nlohmann::json& j, const Source& src, std::initializer_list<const char*> keys, const std::string& prefix = "") {
  for (const auto& item : j.items()) {
    const std::string& k = item.key();  // (a structured binding cannot be captured by clang 14's lambdas)
    if (std::find_if(keys.begin(), keys.end(), [&](const char* known) { return k == known; }) != keys.end()) continue;
    std::string list;
    for (const char* known : keys) list += std::string(list.empty() ? "" : ", ") + known;
    bad(src, prefix + k, "unknown key of an importance file (expected: " + list + ")");
  }
}

double importance_value(const nlohmann::json& v, const Source& src, const std::string& key) {
  if (!v.is_number()) bad(src, key, "expected a number, got " + v.dump());
  const double x = v.get<double>();
  // A loss rise in nats. Head and layer importances are multiplied and summed over every head
  // (Eq. 3): beyond 1e150 the products and their sum leave double's range.
  if (!std::isfinite(x) || x < 0 || x > 1e150) bad(src, key, "expected a finite importance from 0 to 1e150 (a loss rise in nats), got " + v.dump());
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
    bad({file, {}}, "shadowattn.importance_file", "cannot read the file: it " + *why);
  }
  std::ifstream in(file);
  if (!in) bad({file, {}}, "shadowattn.importance_file", "cannot open the file" + config::errno_reason());
  std::stringstream text;
  text << in.rdbuf();
  return parse_importance(text.str(), file, m);
}

OfflineImportance parse_importance(std::string_view text, const fs::path& file, const model::ModelConfig& m) {
  const Source src{file, text};
  const auto line_at = [&](std::size_t offset) { return config::text_line_of_offset(text, offset); };
  // JSON is UTF-8 text: a binary file is named as one (nlohmann said "unexpected end of input" at a NUL).
  if (const auto at = config::detail::first_non_utf8(text)) {
    throw config::ConfigError({file.string(), line_at(*at), 0}, "", fmt::format("byte 0x{:02x} is not UTF-8 text (an importance file is UTF-8 JSON)",
                                                                               static_cast<unsigned char>(text[*at])));
  }
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    throw config::ConfigError({file.string(), line_at(nul), 0}, "", "byte 0x00 is not JSON text (is this a binary file?)");
  }
  nlohmann::json j;
  try {
    j = config::parse_json_unique_keys(text);
  } catch (const config::DuplicateJsonKey& e) {
    throw config::ConfigError({file.string(), e.line(), 0}, e.key(), config::duplicate_key_message(e));
  } catch (const nlohmann::json::parse_error& e) {
    throw config::ConfigError({file.string(), line_at(e.byte), 0}, "", std::string("not valid JSON: ") + e.what());
  } catch (const nlohmann::json::exception& e) {
    bad(src, "(file)", std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) bad(src, "(file)", "expected a JSON object (what `socsim calibrate --out` writes), got " + std::string(j.type_name()));
  only_keys(j, src, {"model", "seed", "method", "calibration", "layers", "heads", "layers_calibrated", "layer_passes", "base_entropy_nats",
                     "layer_importance", "head_importance"});
  OfflineImportance o;
  const auto& model = member(j, src, "model");
  if (!model.is_string()) bad(src, "model", "expected the model id as a string");
  o.model = model.get<std::string>();
  // Importance depends on everything in the model's config (norms, activation, RoPE), not only on
  // the layer and head counts checked below: another model's file is refused even when they match.
  if (o.model != m.id) {
    bad(src, "model", "calibrated for model '" + o.model + "', but this run's model is '" + m.id +
                           "' (calibrate it with `socsim calibrate --model " + m.id + " --out FILE`)");
  }
  if (j.contains("method") && !j.at("method").is_string()) bad(src, "method", "expected the calibration method's description (a string)");
  o.seed = whole(j, src, "seed");
  const auto& cal = member(j, src, "calibration");
  if (!cal.is_object()) bad(src, "calibration", "expected an object, got " + cal.dump());
  only_keys(cal, src, {"sequences", "tokens", "scored", "vocab_rows"}, "calibration.");
  o.options.sequences = whole(cal, src, "sequences", "calibration.");
  o.options.tokens = whole(cal, src, "tokens", "calibration.");
  o.options.scored = whole(cal, src, "scored", "calibration.");
  o.options.vocab_rows = whole(cal, src, "vocab_rows", "calibration.");
  const std::uint64_t layers = whole(j, src, "layers"), heads = whole(j, src, "heads");
  if (layers != m.layers || heads != m.heads) {
    bad(src, "layers", "calibrated for " + counted(layers, "layer") + " x " + counted(heads, "head") + ", but model '" + m.id +
                            "' has " + std::to_string(m.layers) + " x " + std::to_string(m.heads));
  }
  o.options.layers = o.calibration.layers_calibrated = whole(j, src, "layers_calibrated");
  if (o.calibration.layers_calibrated < 1 || o.calibration.layers_calibrated > layers) {
    bad(src, "layers_calibrated", "expected 1 to " + std::to_string(layers) + " (the model's layers), got " +
                                       std::to_string(o.calibration.layers_calibrated));
  }
  o.calibration.layer_passes = whole(j, src, "layer_passes");
  const auto& entropy = member(j, src, "base_entropy_nats");
  // The unablated model's mean next-token entropy: a finite number of nats, never negative.
  if (!entropy.is_number() || !std::isfinite(entropy.get<double>()) || entropy.get<double>() < 0) {
    bad(src, "base_entropy_nats", "expected an entropy in nats (a finite number >= 0), got " + entropy.dump());
  }
  o.calibration.base_entropy = entropy.get<double>();
  const auto& li = member(j, src, "layer_importance");
  if (!li.is_array() || li.size() != layers) bad(src, "layer_importance", "expected " + std::to_string(layers) + " numbers");
  for (std::size_t l = 0; l < li.size(); ++l) {
    o.calibration.importance.layer.push_back(importance_value(li[l], src, "layer_importance[" + std::to_string(l) + "]"));
  }
  const auto& hi = member(j, src, "head_importance");
  if (!hi.is_array() || hi.size() != layers) bad(src, "head_importance", "expected " + std::to_string(layers) + " rows");
  for (std::size_t l = 0; l < hi.size(); ++l) {
    const std::string key = "head_importance[" + std::to_string(l) + "]";
    if (!hi[l].is_array() || hi[l].size() != heads) bad(src, key, "expected " + std::to_string(heads) + " numbers");
    for (std::size_t h = 0; h < heads; ++h) {
      o.calibration.importance.head.push_back(importance_value(hi[l][h], src, key + "[" + std::to_string(h) + "]"));
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
