#include "sim/systems/llms/call_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#include "sim/config/config_error.h"
#include "sim/config/config_tree.h"
#include "sim/config/input_file.h"
#include "sim/runtime/workload/portable_rng.h"

namespace socsim::systems::llms {

std::vector<Dataset> read_dataset_table(const std::filesystem::path& file) {
  // A folder, device or FIFO is named as such before the YAML reader opens it.
  if (const auto why = config::input_file_problem(file, {"a dataset table", 64ull << 20, false})) {
    throw config::ConfigError({file.string(), 0, 0}, "--datasets", *why);
  }
  auto tree = config::ConfigTree::load_file(file);
  const auto list = tree.root().list_child("datasets");
  std::vector<Dataset> out;
  std::map<std::string, int> line_of_name;  // a name twice: which row would a context be drawn from?
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto d = list.at(i);
    Dataset ds;
    ds.name = d.string("name");
    const int line = d.location_of("name").line;
    // The name labels the dataset's contexts in the report: a blank one labels nothing.
    if (ds.name.find_first_not_of(" \t") == std::string::npos) {
      throw config::ConfigError(d.location_of("name"), d.path() + ".name", "expected a dataset's name, got an empty one");
    }
    if (const auto [it, fresh] = line_of_name.emplace(ds.name, line); !fresh) {
      throw config::ConfigError(d.location_of("name"), d.path() + ".name",
                                "'" + ds.name + "' is listed twice (the first at line " + std::to_string(it->second) + ")");
    }
    (void)d.string_or("task", "");
    ds.min_tokens = static_cast<std::uint32_t>(d.integer("min", 1, 1 << 20));
    ds.max_tokens = static_cast<std::uint32_t>(d.integer("max", ds.min_tokens, 1 << 20));
    out.push_back(ds);
  }
  if (out.empty()) throw config::ConfigError(list.location(), "datasets", "expected at least one dataset");
  tree.check_all_consumed();
  return out;
}

Pattern parse_pattern(const std::string& name) {
  if (name == "random") return Pattern::kRandom;
  if (name == "markov") return Pattern::kMarkov;
  if (name == "gaussian") return Pattern::kGaussian;
  throw std::invalid_argument("expected random, markov or gaussian, got '" + name + "'");
}

const char* pattern_name(Pattern p) {
  switch (p) {
    case Pattern::kRandom: return "random";
    case Pattern::kMarkov: return "markov";
    case Pattern::kGaussian: return "gaussian";
  }
  return "?";
}

namespace {

std::uint32_t pick_weighted(runtime::PortableRng& rng, const std::vector<double>& w) {
  double total = 0;
  for (double x : w) total += x;
  double u = rng.unit() * total;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (u < w[i]) return static_cast<std::uint32_t>(i);
    u -= w[i];
  }
  return static_cast<std::uint32_t>(w.size() - 1);
}

}  // namespace

std::vector<Call> generate_trace(const TraceSpec& spec, const std::vector<Dataset>& datasets) {
  runtime::PortableRng rng(spec.seed);
  const std::uint32_t n = spec.contexts;
  auto dataset_of = [&](std::uint32_t c) -> const Dataset& { return datasets[c % datasets.size()]; };
  std::vector<double> gaussian(n, 1.0);
  if (spec.pattern == Pattern::kGaussian) {
    std::vector<double> mean(n);
    double mu = 0;
    for (std::uint32_t c = 0; c < n; ++c) mu += mean[c] = 0.5 * (dataset_of(c).min_tokens + dataset_of(c).max_tokens);
    mu /= n;
    double var = 0;
    for (double m : mean) var += (m - mu) * (m - mu);
    const double s2 = var / n;
    for (std::uint32_t c = 0; c < n; ++c) gaussian[c] = s2 > 0 ? std::exp(-(mean[c] - mu) * (mean[c] - mu) / (2 * s2)) : 1.0;
  }
  std::vector<std::uint32_t> recency(n);  // recency order, most recent first
  for (std::uint32_t c = 0; c < n; ++c) recency[c] = c;

  std::vector<Call> calls;
  const double end_s = spec.hours * 3600;
  double t = 0;
  for (;;) {
    t += -std::log(1.0 - rng.unit()) / spec.calls_per_s;  // exponential gap
    if (t >= end_s) break;
    std::uint32_t ctx = 0;
    switch (spec.pattern) {
      case Pattern::kRandom: ctx = static_cast<std::uint32_t>(rng.below(n)); break;
      case Pattern::kGaussian: ctx = pick_weighted(rng, gaussian); break;
      case Pattern::kMarkov: {
        std::vector<double> w(n);
        double p = 1;
        for (std::uint32_t r = 0; r < n; ++r, p *= spec.markov_decay) w[r] = p;
        ctx = recency[pick_weighted(rng, w)];
        break;
      }
    }
    std::rotate(recency.begin(), std::find(recency.begin(), recency.end(), ctx), std::find(recency.begin(), recency.end(), ctx) + 1);
    const auto& d = dataset_of(ctx);
    const auto delta = d.min_tokens + static_cast<std::uint32_t>(rng.below(d.max_tokens - d.min_tokens + 1));
    calls.push_back({t, ctx, delta});
  }
  return calls;
}

std::uint64_t longest_context_tokens(const std::vector<Call>& calls, std::uint64_t window) {
  const std::uint64_t cap = window == 0 ? std::numeric_limits<std::uint64_t>::max() : window;
  std::map<std::uint32_t, std::uint64_t> held;  // context -> its tokens (a trace names few contexts)
  std::uint64_t longest = 0;
  for (const auto& c : calls) {
    auto& t = held[c.context];
    t = std::min(cap, t + std::min<std::uint64_t>(c.delta_tokens, cap));  // 32-bit deltas over a trace's calls: far below 2^64
    longest = std::max(longest, t);
  }
  return longest;
}

std::vector<Call> read_trace_file(const std::filesystem::path& file, std::uint32_t contexts) {
  // About 60 million calls, more than a serve run of one process should replay. A pipe or FIFO
  // (`--trace <(make-trace)`) is read too: its bytes are counted as it is read.
  constexpr std::uint64_t kMaxTraceBytes = 1ull << 30;
  if (const auto why = config::input_file_problem(file, {"a trace file", kMaxTraceBytes, true})) {
    throw config::ConfigError({file.string(), 0, 0}, "--trace", *why);
  }
  const auto too_large = [&] {
    return config::ConfigError({file.string(), 0, 0}, "--trace",
                               "holds more than the " + std::to_string(kMaxTraceBytes >> 20) + " MiB a trace file may have; split it into several runs");
  };
  std::ifstream in(file, std::ios::binary);
  if (!in) throw config::ConfigError({file.string(), 0, 0}, "--trace", "cannot open the trace file" + config::errno_reason());
  std::vector<Call> calls;
  int lineno = 0;
  const auto parse_line = [&](std::string line) {
    ++lineno;
    // A UTF-8 byte-order mark (an editor's, before the first line) is an encoding mark, not text.
    if (lineno == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream ss(line);
    std::string first;
    if (!(ss >> first)) return;
    std::istringstream row(line);
    Call c;
    double ctx = -1, delta = -1;
    std::string extra;
    const config::SourceLocation where{file.string(), lineno, 1};
    if (!(row >> c.time_s >> ctx >> delta) || (row >> extra)) {
      throw config::ConfigError(where, "trace", "expected 'time_s context delta_tokens'");
    }
    if (!(c.time_s >= 0) || (!calls.empty() && c.time_s < calls.back().time_s)) {
      throw config::ConfigError(where, "trace.time_s", "expected a time >= 0 and not before the previous call");
    }
    if (c.time_s > 8760.0 * 3600) throw config::ConfigError(where, "trace.time_s", "expected a time within a year (31536000 s), as --hours");
    // Below a picosecond, the simulator's tick, a time is 0 to it, yet a span of 1e-300 s divided
    // the rates and the I/O thread's utilisation into numbers of 300 digits.
    if (c.time_s > 0 && c.time_s < 1e-12) {
      throw config::ConfigError(where, "trace.time_s", fmt::format("{} s is below the simulator's resolution of 1 ps: write 0 or a time of at least 1e-12 s", c.time_s));
    }
    if (ctx < 0 || ctx != std::floor(ctx) || ctx >= contexts) {
      throw config::ConfigError(where, "trace.context", "expected an integer context id in [0, " + std::to_string(contexts) + ") (--contexts)");
    }
    if (delta < 1 || delta != std::floor(delta) || delta > (1 << 20)) {
      throw config::ConfigError(where, "trace.delta_tokens", "expected an integer number of tokens in [1, 1048576]");
    }
    c.context = static_cast<std::uint32_t>(ctx);
    c.delta_tokens = static_cast<std::uint32_t>(delta);
    calls.push_back(c);
  };
  // Read in blocks, lines cut from them: the byte count holds for a pipe, and a line without end
  // is stopped by it too.
  std::vector<char> block(1 << 16);
  std::string pending;
  std::size_t scanned = 0;  // bytes of `pending` known to hold no newline
  std::uint64_t total = 0;
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    total += got;
    if (total > kMaxTraceBytes) throw too_large();
    pending.append(block.data(), got);
    std::size_t start = 0;
    for (std::size_t nl; (nl = pending.find('\n', std::max(start, scanned))) != std::string::npos; start = nl + 1, scanned = start) {
      parse_line(pending.substr(start, nl - start));
    }
    pending.erase(0, start);
    scanned = pending.size();
    // A trace line is a few numbers: one past a mebibyte (binary, or text without newlines from a
    // pipe) would otherwise be held whole before it is found wrong.
    constexpr std::size_t kMaxLineBytes = 1 << 20;
    if (pending.size() > kMaxLineBytes) {
      throw config::ConfigError({file.string(), lineno + 1, 1}, "trace", "a line longer than 1 MiB is no 'time_s context delta_tokens' line");
    }
  }
  if (in.bad()) throw config::ConfigError({file.string(), 0, 0}, "--trace", "cannot read the trace file" + config::errno_reason());
  if (!pending.empty()) parse_line(pending);
  // Nothing to replay is a wrong file, not a quiet run with no switches to report.
  if (calls.empty()) throw config::ConfigError({file.string(), 0, 0}, "--trace", "holds no calls (expected lines 'time_s context delta_tokens')");
  return calls;
}

}  // namespace socsim::systems::llms
