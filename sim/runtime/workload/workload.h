#pragma once
// A workload: which requests `socsim run` simulates (prompt and decode lengths, batch, how many).
//
// File format (workloads/<id>.yaml; workloads/README.md has the same text and the shipped files):
//
//   name: droidtask          # free text; default: the file name without .yaml
//   source: "llm.npu Table 5: ..."  # where the lengths come from; default: empty
//   prompt: 512              # prompt tokens, >= 1: a fixed length or a distribution (below)
//   decode: 16               # generated tokens per sequence, >= 0 (0 = prefill only); same forms
//   batch: 1                 # parallel sequences, e.g. N samples of Best-of-N; default 1
//   repeat: 10               # requests drawn; default 1
//   seed: 1                  # seed of the draws; default 1
//
// A distribution is a map with exactly one of these keys (bounds are inclusive, in tokens):
//   {uniform: [min, max]}                               every integer in [min, max] equally likely
//   {normal: {mean: M, std: S, min: A, max: B}}         normal, rounded to the nearest integer and
//                                                       truncated to [A, B] (redrawn when outside);
//                                                       needs S > 0 and A <= M <= B
//   {choices: [a, b, c]}                                one of the listed values, equally likely
//                                                       (list a value twice to double its weight)
//
// Strict, like every socsim YAML file: unknown keys, non-integer lengths, out-of-range values and
// a distribution with two forms are errors naming file:line and the key.
//
// Draws are reproducible across compilers and platforms: they use std::mt19937_64's raw output
// (its sequence is fixed by the C++ standard) with socsim's own integer and normal mappings,
// never std::uniform_int_distribution / std::normal_distribution, whose algorithms are
// implementation-defined. (Normal draws pass through log and cos, which math libraries may round
// an ulp apart; after rounding to whole tokens that can only matter on an exact .5 tie.) Each
// request draws its prompt, then its decode length; a fixed length draws nothing.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sim/config/config_error.h"

namespace socsim::runtime {

struct FixedLength {
  std::uint64_t value = 0;
};

struct UniformLength {
  std::uint64_t min = 0, max = 0;
};

struct NormalLength {
  double mean = 0, std_dev = 0;
  std::uint64_t min = 0, max = 0;  // truncation bounds, inclusive
};

struct ChoiceLength {
  std::vector<std::uint64_t> values;  // never empty
};

struct LengthDist {
  std::variant<FixedLength, UniformLength, NormalLength, ChoiceLength> form;

  // Every draw lies in [min(), max()]: what a caller checks against a model's context.
  std::uint64_t min() const;
  std::uint64_t max() const;
};

// Sequences one request decodes together, the most a workload file or --batch may ask (far
// beyond any phone's; a typo's extra zeros would plan for hours).
constexpr std::int64_t kMaxBatch = 1 << 16;

struct Workload {
  std::string name, source;
  LengthDist prompt, decode;
  config::SourceLocation prompt_at, decode_at;  // their lines in the file (errors against a model's window)
  config::SourceLocation batch_at;              // its line (errors against the device's memory); none without `batch:`
  std::uint64_t batch = 1, repeat = 1, seed = 1;
  // Whether any length is drawn (a seed then matters): fixed lengths draw nothing, and neither do
  // distributions of one possible length (choices: [5], uniform: [5, 5], a normal clamped to one
  // value), which were taken as draws.
  bool draws() const { return prompt.min() != prompt.max() || decode.min() != decode.max(); }
};

struct Request {
  std::uint64_t prompt = 0, decode = 0, batch = 1;
};

// Throws config::ConfigError (file:line, key, what was expected) for any mistake in the file.
Workload load_workload(const std::filesystem::path& file);
// The same from text; `file_name` appears in errors and gives the default name. For tests.
Workload parse_workload(std::string_view yaml, const std::string& file_name);

// `repeat` requests; the same workload (and seed) gives the same requests everywhere.
std::vector<Request> draw_requests(const Workload& workload);

}  // namespace socsim::runtime
