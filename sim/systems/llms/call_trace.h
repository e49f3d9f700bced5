#pragma once
// The service's input: a trace of callLLM events over hours (LLMS §4). Generated as the paper
// describes: call times a Poisson process (default one call per 5 minutes), the called context
// chosen by a pattern, and the context's growth per call drawn from its dataset's delta-length
// range (workloads/llms/datasets.yaml, Table 3). Or replayed from a file (read_trace_file).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace socsim::systems::llms {

struct Dataset {
  std::string name;
  std::uint32_t min_tokens = 0, max_tokens = 0;  // growth per call, inclusive
};

// Reads the dataset table; throws config::ConfigError naming file, line and key.
std::vector<Dataset> read_dataset_table(const std::filesystem::path& file);

enum class Pattern { kRandom, kMarkov, kGaussian };
Pattern parse_pattern(const std::string& name);  // throws std::invalid_argument
const char* pattern_name(Pattern p);

struct Call {
  double time_s = 0;
  std::uint32_t context = 0;
  std::uint32_t delta_tokens = 0;  // tokens the call adds to the context (prompt + output)
};

struct TraceSpec {
  std::uint32_t contexts = 1;
  double hours = 72;
  double calls_per_s = 1.0 / 300;  // Poisson rate
  Pattern pattern = Pattern::kRandom;
  double markov_decay = 0.5;       // markov: P(context of recency rank r) ~ decay^r
  std::uint64_t seed = 0;
};

// Deterministic for a seed on every platform (PortableRng).
//   random:   uniform over contexts.
//   markov:   first order; contexts ranked by recency (the last called first, never-called ones
//             after in index order), rank r chosen with weight decay^r.
//   gaussian: weight exp(-(mean_delta_i - mu)^2 / (2 s^2)), mu and s the mean and standard
//             deviation of the contexts' mean deltas: moderate-load contexts are called most.
std::vector<Call> generate_trace(const TraceSpec& spec, const std::vector<Dataset>& datasets);

// The most tokens any context holds over the calls: each context's tokens summed, a call adding
// at most the window and a context holding at most the window (0: no window). An upper bound of
// what a recompute covers (the service drops whole chunks to fit the window, never more tokens).
std::uint64_t longest_context_tokens(const std::vector<Call>& calls, std::uint64_t window);

// A trace file: one call per line, "time_s context delta_tokens", '#' comments, times
// non-decreasing, contexts < `contexts`. Throws config::ConfigError naming file:line.
std::vector<Call> read_trace_file(const std::filesystem::path& file, std::uint32_t contexts);

}  // namespace socsim::systems::llms
