#pragma once
// The LLM service over a call trace (LLMS): for each callLLM, the context's KV cache must be in
// memory before inference; the time that takes is the context-switching latency. The event loop
// runs over calls with costs profiled once from the simulated units (ServiceCosts), so hours of
// service simulate in milliseconds.
//
// A call at time t to context c growing it by d tokens:
//   1. if the call reads or writes, wait for background write-back still running;
//   2. slide the window: chunks beyond the model's context length (oldest first) are deleted;
//   3. lock c, Claim memory for c's missing chunks and its new tokens: Reclaim others' chunks in
//      the policy's eviction order; a chunk without a storage copy is written first (on the
//      caller's path) unless the policy drops it (LMK);
//   4. Load c's missing chunks: read (swap, vllm-s/-sq), recompute (lmk) or the planner's split
//      (llms; all read with the pipeline off);
//   5. inference appends the tokens (new chunks at 8/8; the partial last chunk is modified);
//   6. llms with compression: re-rank c's chunks and requantize to the assigned levels;
//   7. llms with lifecycle: ahead-of-time swap-out of every chunk modified in the call, in the
//      background (the storage is busy, the caller does not wait); unlock.
// Switch latency = steps 1-4.
//
// Policies: llms (INT8 base, the three techniques), lmk (FP16, whole LRU contexts killed and
// recomputed on their next call), swap (FP16, whole LRU contexts swapped out and in), vllm-s
// (FP16 chunks, LRU, swap-out on eviction), vllm-sq (vllm-s with uniform INT8).
#include <cstdint>
#include <string>
#include <vector>

#include "sim/model/model_config.h"
#include "sim/systems/llms/call_trace.h"
#include "sim/systems/llms/context_store.h"
#include "sim/systems/llms/llms_options.h"
#include "sim/systems/llms/service_costs.h"

namespace socsim::systems::llms {

enum class Policy { kLlms, kLmk, kSwap, kVllmS, kVllmSq };
Policy parse_policy(const std::string& name);  // throws std::invalid_argument
const char* policy_name(Policy p);
// Bytes of one chunk at 8/8 of the policy's base precision: layers x 2 (K, V) x kv_heads x
// head_dim x chunk_tokens x (1 for INT8, 2 for FP16).
std::uint64_t base_chunk_bytes(Policy p, const model::ModelConfig& m, std::uint32_t chunk_tokens);
// The policy's KV element size: 1 (INT8: llms, vllm-sq) or 2 (FP16).
std::uint32_t kv_element_bytes(Policy p);
// How the policy stores a chunk: llms layer by layer as llms.io_granularity says (its swap/recompute
// pipeline needs a layer's KV at a time); the baselines have no such pipeline and move each chunk
// (swap: each chunk of the context) whole, one request per chunk.
IoGranularity io_granularity_of(Policy p, const Options& o);

// Where chunk densities come from. kSyntheticLognormal (timing mode): lognormal(0,
// llms.density_sigma) per new chunk, fixed. kAttentionScores (functional mode): each context's
// text (seeded token ids) runs through the density stand-in decoder call by call and every
// chunk's density is re-derived from the attention scores (attention_density.h).
enum class DensitySource { kSyntheticLognormal, kAttentionScores };
const char* density_source_name(DensitySource s);

struct ServiceConfig {
  Policy policy = Policy::kLlms;
  Options options;
  std::uint32_t contexts = 1;
  std::uint64_t memory_budget = 0;
  model::ModelConfig model;              // KV dimensions, layers, window (max_context)
  std::uint64_t seed = 0;                // synthetic densities
  bool check_invariants = false;         // after every call step (debug builds always)
  DensitySource density_source = DensitySource::kSyntheticLognormal;
};

struct ServiceResult {
  std::vector<double> switch_s;  // per call, trace order
  std::uint64_t bytes_read = 0, bytes_written = 0;
  std::uint64_t chunks_read = 0, chunks_recomputed = 0, chunks_written = 0, evicted_chunks = 0, killed_contexts = 0;
  double energy_j = 0;             // recompute + storage traffic + the I/O thread's CPU time
  double io_host_s = 0;            // the I/O thread's host work (unpickling, copies, uploads), reads and writes
  double io_busy_s = 0;            // the I/O thread's whole time: storage requests and host work, reads and writes
  double foreground_write_s = 0;   // write-back on callers' paths
  double mean_kept_ratio = 0;      // over chunks at the end, relative to the policy's base
  // Functional mode, llms with compression: per call, the attention-output relative error of the
  // called context's last rows over its compressed cache vs the INT8 cache (the stand-in's).
  std::vector<double> compressed_rel_error;
};

// Throws std::invalid_argument when one context at the window does not fit the budget.
ServiceResult simulate_service(const ServiceConfig& cfg, const ServiceCosts& costs, const std::vector<Call>& trace);

}  // namespace socsim::systems::llms
