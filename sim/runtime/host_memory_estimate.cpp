#include "sim/runtime/host_memory_estimate.h"

#include <fmt/format.h>

#include "sim/config/config_error.h"

namespace socsim::runtime {

namespace {

std::uint64_t heap(const std::string& s) { return s.capacity() > 15 ? s.capacity() + 1 : 0; }  // beyond the small-string buffer

// What the run holds per byte of plan, with the executor's per-job state (times, triggers, the
// job's coroutine while it waits), events and the allocator's overhead. Measured with
// /usr/bin/time -v on decodes of 600 and 1800 tokens (qwen2-1.5b, prompt 128): the growth of the
// peak resident size per decode token over plan_bytes' growth per token was 1.15 (gpu-only),
// 1.37 (tts-npu), 1.97 (npu-only), 2.5 (hetero-tensor), 2.9 (cpu-only, llm-npu, shadowattn). The
// least, rounded down, so the estimate never exceeds what a run holds: a refused run would
// really not have fitted (one estimated to fit and that does not is still stopped as it grows).
constexpr double kHeldPerPlanByte = 1.1;

}  // namespace

std::uint64_t plan_bytes(const Plan& plan) {
  std::uint64_t b = plan.jobs.size() * sizeof(Job);
  for (const auto& j : plan.jobs) {
    b += heap(j.name) + heap(j.npu_graph) + heap(j.cpu_cluster) + heap(j.lane);
    b += j.ops.size() * sizeof(model::GraphOp) + (j.deps.size() + j.start_deps.size()) * sizeof(std::uint32_t);
    for (const auto& g : j.ops) b += heap(g.op.name);
  }
  return b;
}

std::uint64_t estimated_bytes_per_decode_token(systems::System& system, const RunRequest& req, const Request& request) {
  const Plan one = system.plan(req.soc, req.model, {request.prompt, 1, request.batch});
  const Plan two = system.plan(req.soc, req.model, {request.prompt, 2, request.batch});
  const std::uint64_t a = plan_bytes(one), b = plan_bytes(two);
  return b > a ? static_cast<std::uint64_t>(static_cast<double>(b - a) * kHeldPerPlanByte) : 0;
}

void check_estimated_host_memory(systems::System& system, const RunRequest& req, const std::vector<Request>& requests) {
  if (req.max_host_memory == 0) return;
  // Decode windows bound the plan held at a time (RunRequest::decode_window), except for the
  // request functional mode measured, which runs whole.
  if (system.decode_windows() && req.decode_window > 0 && req.data_driven.empty()) return;
  const Request* longest = nullptr;
  for (const auto& r : requests) {
    // Plan bytes per step barely depend on the batch: the longest decode needs the most.
    if (r.decode >= kEstimateFromDecode && (!longest || r.decode > longest->decode)) longest = &r;
  }
  if (!longest) return;
  const std::uint64_t per_token = estimated_bytes_per_decode_token(system, req, *longest);
  const double need = static_cast<double>(per_token) * static_cast<double>(longest->decode);
  if (need <= static_cast<double>(req.max_host_memory)) return;
  const double gib = 1024.0 * 1024 * 1024;
  throw config::ConfigError(
      {"command line", 0, 0}, "--max-host-memory",
      fmt::format("this run would hold about {:.1f} GiB of host memory ({} decode tokens x about {:.0f} KiB of plan per token under "
                  "{}), more than the limit of {:.1f} GiB: socsim keeps a request's plan while it runs (issue #21); shorten the "
                  "decode (or split it into requests with --workload) or raise --max-host-memory",
                  need / gib, longest->decode, static_cast<double>(per_token) / 1024, req.system,
                  static_cast<double>(req.max_host_memory) / gib));
}

}  // namespace socsim::runtime
