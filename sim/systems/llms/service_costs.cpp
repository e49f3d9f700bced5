#include "sim/systems/llms/service_costs.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/config/config_error.h"
#include "sim/hw/hardware_limit_error.h"
#include "sim/config/config_tree.h"
#include "sim/core/host_memory.h"
#include "sim/core/simulator.h"
#include "sim/hw/soc.h"
#include "sim/report/trace.h"
#include "sim/runtime/simulate_run.h"
#include "sim/systems/system.h"

namespace socsim::systems::llms {

IoCost fit_io(const std::vector<double>& requests, const std::vector<double>& bytes, const std::vector<double>& seconds) {
  // Normal equations of the 2-variable fit without intercept.
  double rr = 0, rb = 0, bb = 0, rs = 0, bs = 0;
  for (std::size_t i = 0; i < seconds.size(); ++i) {
    rr += requests[i] * requests[i];
    rb += requests[i] * bytes[i];
    bb += bytes[i] * bytes[i];
    rs += requests[i] * seconds[i];
    bs += bytes[i] * seconds[i];
  }
  const double det = rr * bb - rb * rb;
  if (!(det > 0)) throw std::invalid_argument("fit_io: needs points with different bytes per request");
  return {(rs * bb - bs * rb) / det, (rr * bs - rb * rs) / det};
}

namespace {

Task<> issue(hw::UfsStorage& s, bool write, std::uint64_t requests, std::uint64_t bytes) {
  for (std::uint64_t i = 0; i < requests; ++i) {
    if (write) co_await s.write(bytes);
    else co_await s.read(bytes);
  }
}

// Seconds for `requests` back-to-back requests of `bytes` each on an idle SoC's storage.
double time_requests(const hw::SocSpec& soc, bool write, std::uint64_t requests, std::uint64_t bytes) {
  Simulator sim;
  hw::Soc chip(sim, soc, nullptr);
  sim.spawn(issue(chip.storage(), write, requests, bytes), "llms-io-profile");
  sim.run();
  return to_seconds(sim.now());
}

}  // namespace

std::vector<std::uint64_t> recompute_profile_tokens(std::uint32_t chunk_tokens, std::uint64_t window) {
  if (chunk_tokens == 0) throw std::invalid_argument("recompute_profile_tokens: chunk_tokens must be > 0");
  std::vector<std::uint64_t> tokens;
  for (std::uint64_t k : {1, 2, 4, 8}) {
    if (window == 0 || k * chunk_tokens <= window) tokens.push_back(k * chunk_tokens);
  }
  // Chunks as large as the window: halves of one, down to a token, until three points are timed.
  std::uint64_t part = tokens.empty() ? std::max<std::uint64_t>(1, std::min<std::uint64_t>(chunk_tokens, window)) : tokens.front();
  if (tokens.empty()) tokens.push_back(part);
  while (tokens.size() < 3 && part > 1) {
    part /= 2;
    tokens.insert(tokens.begin(), part);
  }
  // A one-token window: the cost needs a second point, past it.
  if (tokens.size() < 2) tokens.push_back(2 * tokens.back());
  // On to the window, doubling, and the window itself: what a long resident context costs.
  if (window > 0) {
    while (tokens.back() <= window / 2) tokens.push_back(2 * tokens.back());
    if (tokens.back() < window) tokens.push_back(window);
  }
  return tokens;
}

ServiceCosts profile_costs(const hw::SocSpec& soc, const model::ModelConfig& model, const Options& opt, std::uint64_t chunk_bytes,
                           std::uint32_t element_bytes, std::uint64_t longest_context) {
  ServiceCosts c;
  // Recompute: prefills of 1, 2, 4, 8 chunks by the recompute system with its default options.
  auto system = SystemRegistry::builtin().make(opt.recompute_system);
  auto options = config::ConfigTree::load_string("{}", "llms recompute profile");
  auto root = options.root();
  try {
    system->configure(root, soc, model);
  } catch (const config::ConfigError& err) {
    // The option chose the system (an NPU system on a SoC without one blamed the SoC file).
    throw config::ConfigError({"command line", 0, 0}, "llms.recompute_system",
                              fmt::format("'{}' cannot recompute on this SoC and model: {}", opt.recompute_system,
                                          config::format_config_error(err.location(), err.key(), err.message())));
  }
  std::vector<double> x, t, e;
  bool kv_on_gpu = false;  // the recompute system computes on the GPU: the KV must go there
  // The window's ladder, cut after its first length at or past what the traces reach (and never
  // before 8 chunks or the pair fit's length, below): the lengths the traces need are interpolated between the same prefills as in
  // a whole profile, and one chunk is never extrapolated from token-sized prefills.
  auto lengths = recompute_profile_tokens(opt.chunk_tokens, model.max_context);
  // The attention per pair is fitted on the prefills up to a fixed length (or the window), so
  // that it is the same whatever the traces reach: fitted at the top of a profile cut where the
  // traces stop, one longer context moved every other context's recompute cost (llama-3.2-1b on
  // the 8 Gen 3 by llm-npu: 1071 ms per million pairs from contexts of 33 tokens, 446 from 8000).
  // (At least 8 chunks: chunks past 1024 tokens leave too few ladder points under 4096 to span 4x.)
  const std::uint64_t fit_len = std::max<std::uint64_t>(kPairFitTokens, 8ull * opt.chunk_tokens);
  const std::uint64_t pair_fit = model.max_context == 0 ? fit_len : std::min<std::uint64_t>(model.max_context, fit_len);
  if (longest_context > 0) {
    const std::uint64_t reach = std::max<std::uint64_t>({longest_context, 8ull * opt.chunk_tokens, pair_fit});
    const auto past = std::find_if(lengths.begin(), lengths.end(), [&](std::uint64_t n) { return n >= reach; });
    if (past != lengths.end()) lengths.erase(past + 1, lengths.end());
  }
  // Up to 8 chunks every prefill must run; a longer one the SoC cannot hold (the device memory
  // check, a hardware limit) ends the profile there: the shorter ones ran with the same system and
  // options, so the length is the cause. The cost continues past it (recompute_cost.h); the
  // report says why it stopped. Any other error (the host's memory limit included) is raised.
  const auto required = static_cast<std::size_t>(
      std::count_if(lengths.begin(), lengths.end(), [&](std::uint64_t n) { return n <= 8ull * opt.chunk_tokens; }));
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    const std::uint64_t tokens = lengths[i];
    runtime::RunRequest req;
    req.soc_id = soc.name;
    req.soc = soc;
    req.model = model;
    req.system = opt.recompute_system;
    req.prompt_tokens = tokens;
    req.decode_tokens = 0;
    req.max_host_memory = thread_host_memory_limit();  // the serve's --max-host-memory holds here too
    report::TraceRecorder trace(report::TraceDetail::kOff);  // costs only: no timeline kept
    std::optional<report::RunReport> run;
    try {
      run = runtime::simulate_run(req, *system, trace);
    } catch (const config::ConfigError& err) {
      if (i >= required && err.key() == "--model") {  // the device's memory check (memory_fit.h)
        c.profile_stopped_by = fmt::format("a prefill of {} tokens: {}", tokens, err.message());
        break;
      }
      // Say which service option led here: the profile's prefill is not on the command line.
      throw config::ConfigError({"command line", 0, 0}, "llms.recompute_system",
                                fmt::format("profiling the recompute cost of '{}' (a prefill of {} tokens, llms.chunk_tokens={}): {}",
                                            opt.recompute_system, tokens, opt.chunk_tokens,
                                            config::format_config_error(err.location(), err.key(), err.message())));
    } catch (const hw::HardwareLimitError& err) {
      if (i >= required) {
        c.profile_stopped_by = fmt::format("a prefill of {} tokens: {}", tokens, err.what());
        break;
      }
      throw config::ConfigError({"command line", 0, 0}, "llms.recompute_system",
                                fmt::format("profiling the recompute cost of '{}' (a prefill of {} tokens, llms.chunk_tokens={}): SoC: {}",
                                            opt.recompute_system, tokens, opt.chunk_tokens, err.what()));
    }
    const auto& r = *run;
    x.push_back(static_cast<double>(tokens));
    t.push_back(r.prefill_ms.value_or(0) / 1e3);
    e.push_back(r.energy_j.value_or(0));
    for (const auto& u : r.units) kv_on_gpu = kv_on_gpu || (u.name == "gpu" && u.busy_ms > 0);
  }
  // The upload exists only when the recompute system computes on the GPU; elsewhere the KV is read
  // in place and the switch would change nothing.
  if (opt.io_upload_given && !kv_on_gpu) {
    throw config::ConfigError({"command line", 0, 0}, "llms.io_upload",
                              "switches the copy of each chunk read to the GPU, but llms.recompute_system '" + opt.recompute_system +
                                  "' does not compute on the GPU: the KV is read in place");
  }
  c.recompute_s = RecomputeCost::from_profile(x, t, static_cast<double>(pair_fit));
  c.recompute_j = RecomputeCost::from_profile(x, e, static_cast<double>(pair_fit));
  // Storage: requests of the I/O path's size and a quarter of it (a 2/8 chunk), 1 and 8 of each.
  c.io = chunk_io_path(soc, model, opt, element_bytes, kv_on_gpu);
  // At least 4 B, so that the quarter-size series has bytes to time.
  const std::uint64_t request_bytes = std::max<std::uint64_t>(4, (chunk_bytes + c.io.requests_per_chunk - 1) / c.io.requests_per_chunk);
  for (bool write : {false, true}) {
    std::vector<double> req, bytes, secs;
    for (std::uint64_t size : {request_bytes, request_bytes / 4}) {
      for (std::uint64_t n : {1, 8}) {
        req.push_back(static_cast<double>(n));
        bytes.push_back(static_cast<double>(n * size));
        secs.push_back(time_requests(soc, write, n, size));
      }
    }
    (write ? c.write_storage : c.read_storage) = fit_io(req, bytes, secs);
  }
  // Per chunk: its storage requests and the host work around them.
  for (bool write : {false, true}) {
    const IoCost& dev = write ? c.write_storage : c.read_storage;
    IoCost per_chunk = c.io.host_cost();
    per_chunk.per_request_s += c.io.requests_per_chunk * dev.per_request_s;
    per_chunk.per_byte_s += dev.per_byte_s;
    (write ? c.write : c.read) = per_chunk;
  }
  c.read_j_per_byte = soc.power.storage_read_energy_per_byte;
  c.write_j_per_byte = soc.power.storage_write_energy_per_byte;
  return c;
}

}  // namespace socsim::systems::llms
