#include "sim/core/host_memory.h"
#include "sim/systems/llms/service_simulation.h"

#include <algorithm>
#include <stdexcept>

#include "sim/core/run_progress.h"
#include "sim/runtime/workload/portable_rng.h"
#include "sim/systems/llms/attention_density.h"
#include "sim/systems/llms/load_planner.h"

namespace socsim::systems::llms {

Policy parse_policy(const std::string& name) {
  if (name == "llms") return Policy::kLlms;
  if (name == "lmk") return Policy::kLmk;
  if (name == "swap") return Policy::kSwap;
  if (name == "vllm-s") return Policy::kVllmS;
  if (name == "vllm-sq") return Policy::kVllmSq;
  throw std::invalid_argument("expected llms, lmk, swap, vllm-s or vllm-sq, got '" + name + "'");
}

const char* policy_name(Policy p) {
  switch (p) {
    case Policy::kLlms: return "llms";
    case Policy::kLmk: return "lmk";
    case Policy::kSwap: return "swap";
    case Policy::kVllmS: return "vllm-s";
    case Policy::kVllmSq: return "vllm-sq";
  }
  return "?";
}

const char* density_source_name(DensitySource s) {
  return s == DensitySource::kAttentionScores ? "attention-scores" : "synthetic-lognormal";
}

IoGranularity io_granularity_of(Policy p, const Options& o) { return p == Policy::kLlms ? o.io_granularity : IoGranularity::kChunk; }

std::uint32_t kv_element_bytes(Policy p) { return (p == Policy::kLlms || p == Policy::kVllmSq) ? 1 : 2; }

std::uint64_t base_chunk_bytes(Policy p, const model::ModelConfig& m, std::uint32_t chunk_tokens) {
  return m.layers * 2 * m.kv_heads * m.head_dim * chunk_tokens * kv_element_bytes(p);
}

namespace {

class Service {
 public:
  Service(const ServiceConfig& cfg, const ServiceCosts& costs)
      : cfg_(cfg),
        costs_(costs),
        store_(cfg.contexts, base_chunk_bytes(cfg.policy, cfg.model, cfg.options.chunk_tokens), cfg.memory_budget,
               cfg.policy == Policy::kLmk),
        rng_(cfg.seed),
        text_rng_(cfg.seed ^ 0x7e47'5eedULL) {
    if (functional()) {
      decoder_ = density_stand_in(cfg.seed);
      for (std::uint32_t c = 0; c < cfg.contexts; ++c) attention_.emplace_back(decoder_, cfg.options.chunk_tokens, kServeScoredRows);
    }
    const std::uint64_t window_chunks = (cfg.model.max_context + cfg.options.chunk_tokens - 1) / cfg.options.chunk_tokens;
    if (window_chunks * store_.base_chunk_bytes() > cfg.memory_budget) {
      throw std::invalid_argument("one context at the model's window (" + std::to_string(window_chunks) + " chunks of " +
                                  std::to_string(store_.base_chunk_bytes()) + " B) does not fit the memory budget");
    }
  }

  ServiceResult run(const std::vector<Call>& trace) {
    for (std::size_t i = 0; i < trace.size(); ++i) {
      progress_service_call(i + 1, trace.size());  // functional mode computes attention call by call
      if (i % 1024 == 0) check_host_memory();  // the host limit, and a pending interrupt (the Python module's Ctrl-C)
      result_.switch_s.push_back(serve(trace[i]));
    }
    double kept = 0, n = 0;
    for (const auto& ctx : store_.contexts()) {
      for (const auto& ch : ctx.chunks) {
        kept += kLevelRatio[ch.level];
        n += 1;
      }
    }
    result_.mean_kept_ratio = n > 0 ? kept / n : 1.0;
    return result_;
  }

 private:
  bool is_llms() const { return cfg_.policy == Policy::kLlms; }
  bool lctru() const { return is_llms() && cfg_.options.lifecycle; }
  bool aot() const { return is_llms() && cfg_.options.lifecycle; }
  // Densities only steer llms's compression; other policies skip the decoder work.
  bool functional() const { return cfg_.density_source == DensitySource::kAttentionScores && is_llms() && cfg_.options.compression; }
  bool whole_context() const { return cfg_.policy == Policy::kLmk || cfg_.policy == Policy::kSwap; }

  void verify(std::uint64_t slack = 0) const {
#ifdef NDEBUG
    if (!cfg_.check_invariants) return;
#endif
    store_.check_invariants(slack);
  }

  // Writes chunks without a storage copy; returns the seconds.
  double write_back(const std::vector<Chunk*>& chunks) {
    std::uint64_t bytes = 0, requests = 0, packed = 0;
    for (Chunk* ch : chunks) {
      if (ch->on_storage || !ch->in_memory) continue;
      bytes += store_.chunk_bytes(*ch);
      if (ch->level > 0) packed += store_.base_chunk_bytes();
      ++requests;
      ch->on_storage = true;
    }
    const double delivered = static_cast<double>(requests * store_.base_chunk_bytes());
    result_.bytes_written += bytes;
    result_.chunks_written += requests;
    const double host_s = costs_.io.host_seconds(static_cast<double>(requests), static_cast<double>(bytes), delivered, static_cast<double>(packed));
    result_.io_host_s += host_s;
    result_.energy_j += static_cast<double>(bytes) * costs_.write_j_per_byte + host_s * costs_.io.host_power_w;
    const double seconds = costs_.write.seconds(static_cast<double>(requests), static_cast<double>(bytes), delivered, static_cast<double>(packed));
    result_.io_busy_s += seconds;
    return seconds;
  }

  // Frees memory until `need` more bytes fit; returns the seconds spent writing on the way.
  double reclaim(std::uint64_t need) {
    double seconds = 0;
    std::uint64_t resident = store_.resident_bytes();
    if (resident + need <= store_.budget_bytes()) return 0;
    auto& ctxs = store_.contexts();
    for (EvictionQueue order(ctxs, lctru()); !order.empty();) {
      if (resident + need <= store_.budget_bytes()) break;
      const ChunkRef ref = order.pop();
      Chunk& ch = ctxs[ref.context].chunks[ref.chunk];
      if (!ch.in_memory) continue;  // taken with its whole context already
      std::vector<Chunk*> victims;
      if (whole_context()) {
        for (auto& c : ctxs[ref.context].chunks) {
          if (c.in_memory) victims.push_back(&c);
        }
        if (cfg_.policy == Policy::kLmk) ++result_.killed_contexts;
      } else {
        victims.push_back(&ch);
      }
      if (cfg_.policy != Policy::kLmk) seconds += write_back(victims);
      for (Chunk* v : victims) {
        resident -= store_.chunk_bytes(*v);
        v->in_memory = false;
        if (cfg_.policy == Policy::kLmk) {
          v->on_storage = false;
          v->dropped = true;
        }
        ++result_.evicted_chunks;
      }
    }
    return seconds;
  }

  double serve(const Call& call) {
    auto& ctx = store_.contexts()[call.context];
    const std::uint32_t chunk_tokens = cfg_.options.chunk_tokens;
    double latency = 0;
    const std::uint64_t io_before = result_.chunks_read + result_.chunks_written;
    const std::uint64_t evicted_before = result_.evicted_chunks;

    // 2. Sliding window: the oldest chunks leave the context (their memory and storage copies freed).
    std::uint64_t tokens = 0;
    for (const auto& ch : ctx.chunks) tokens += ch.tokens;
    const std::uint64_t delta = std::min<std::uint64_t>(call.delta_tokens, cfg_.model.max_context);
    std::size_t drop = 0;
    while (drop < ctx.chunks.size() && tokens + delta > cfg_.model.max_context) tokens -= ctx.chunks[drop++].tokens;
    if (functional()) attention_[call.context].drop_front(attention_[call.context].tokens() - tokens);
    ctx.chunks.erase(ctx.chunks.begin(), ctx.chunks.begin() + static_cast<long>(drop));

    // 3. Claim: the missing chunks and the new tokens' chunks (the partial last chunk is filled first).
    ctx.locked = true;
    // Each missing chunk with where it sits: its recompute attends over every token before it.
    std::vector<MissingChunk> missing;
    std::uint64_t need = 0, position = 0;
    double missing_tokens = 0, missing_pairs = 0;
    for (const auto& ch : ctx.chunks) {
      const std::uint64_t start = position;
      position += ch.tokens;
      if (ch.in_memory) continue;
      missing.push_back({ch.level, ch.tokens, start});
      missing_tokens += ch.tokens;
      missing_pairs += RecomputeCost::pairs_of(static_cast<double>(start), ch.tokens);
      need += store_.chunk_bytes(ch);
    }
    const std::uint64_t missing_count = missing.size();
    const std::uint32_t room = ctx.chunks.empty() ? 0 : chunk_tokens - ctx.chunks.back().tokens;
    const std::uint64_t new_chunks = delta > room ? (delta - room + chunk_tokens - 1) / chunk_tokens : 0;
    need += new_chunks * store_.base_chunk_bytes();
    const double write_s = reclaim(need);
    latency += write_s;
    result_.foreground_write_s += write_s;

    // 4. Load.
    double load_s = 0, read_io_s = 0;  // read_io_s: the I/O thread's part of the load
    if (missing_count > 0) {
      if (cfg_.policy == Policy::kLmk) {
        load_s = costs_.recompute_s.at(missing_tokens, missing_pairs);
        result_.energy_j += costs_.recompute_j.at(missing_tokens, missing_pairs);
        result_.chunks_recomputed += missing_count;
      } else {
        const bool pipeline = is_llms() && cfg_.options.recompute_pipeline;
        // Layer-wise I/O overlaps recompute layer by layer; a chunk read whole overlaps nothing.
        const bool by_layer = io_granularity_of(cfg_.policy, cfg_.options) == IoGranularity::kLayer;
        const auto depth = by_layer ? static_cast<std::uint32_t>(cfg_.model.layers) : 1u;
        const auto plan = plan_load(missing, costs_, store_.base_chunk_bytes(), depth, pipeline);
        std::uint64_t recomputed = 0;
        for (auto r : plan.recompute) recomputed += r;
        load_s = plan.pipelined_s;
        read_io_s = plan.io_s;
        result_.bytes_read += plan.read_bytes;
        result_.chunks_read += plan.read_requests;
        result_.chunks_recomputed += recomputed;
        const double host_s = costs_.io.host_seconds(static_cast<double>(plan.read_requests), static_cast<double>(plan.read_bytes),
                                                     static_cast<double>(plan.delivered_bytes), static_cast<double>(plan.packed_bytes));
        result_.io_host_s += host_s;
        result_.io_busy_s += plan.io_s;
        result_.energy_j += static_cast<double>(plan.read_bytes) * costs_.read_j_per_byte +
                            costs_.recompute_j.at(plan.recompute_tokens, plan.recompute_pairs) + host_s * costs_.io.host_power_w;
      }
      for (auto& ch : ctx.chunks) {
        if (ch.in_memory) continue;
        ch.in_memory = true;
        ch.dropped = false;
      }
    }
    latency += load_s;
    // The storage serves one request at a time: a call that reads or writes waits for the
    // background write-back still running; so does a call that evicts chunks swapped out ahead of
    // time, because a chunk's memory can be dropped only once its copy is on storage (the queue is
    // not tracked chunk by chunk: any such eviction waits for the whole queue). A call that does
    // neither does not, nor does an lmk kill (nothing is written).
    const bool did_io = result_.chunks_read + result_.chunks_written > io_before;
    const bool evicted_written = aot() && result_.evicted_chunks > evicted_before;
    const double io_wait = did_io || evicted_written ? std::max(0.0, storage_free_s_ - call.time_s) : 0.0;
    latency += io_wait;
    verify(0);

    // 5. Inference appends the tokens.
    std::uint64_t left = delta;
    if (!ctx.chunks.empty() && room > 0 && left > 0) {
      const auto add = static_cast<std::uint32_t>(std::min<std::uint64_t>(room, left));
      Chunk& last = ctx.chunks.back();
      last.tokens += add;
      last.on_storage = false;  // modified
      left -= add;
    }
    while (left > 0) {
      Chunk ch;
      ch.tokens = static_cast<std::uint32_t>(std::min<std::uint64_t>(chunk_tokens, left));
      ch.in_memory = true;
      if (!functional()) ch.density = synthetic_density(rng_, cfg_.options.density_sigma);
      ctx.chunks.push_back(ch);
      note_host_growth(sizeof(Chunk));  // --max-host-memory: contexts grow chunk by chunk (1-token chunks over a 128k window: 4 MB each)
      left -= ch.tokens;
    }
    if (functional()) {
      // The call's text (seeded ids) through the stand-in: every chunk's density is re-derived.
      auto& att = attention_[call.context];
      std::vector<int> ids(delta);
      for (int& id : ids) id = static_cast<int>(text_rng_.below(static_cast<std::uint64_t>(decoder_.vocab)));
      att.extend(ids);
      const auto density = att.chunk_densities();
      if (density.size() != ctx.chunks.size()) throw std::logic_error("functional densities out of step with the chunks");
      for (std::size_t i = 0; i < density.size(); ++i) ctx.chunks[i].density = density[i];
    }

    // 6. Tolerance-aware compression: re-rank, requantize the chunks whose level grows.
    if (is_llms() && cfg_.options.compression) {
      std::vector<double> density;
      std::vector<int> floor;
      for (const auto& ch : ctx.chunks) {
        density.push_back(ch.density);
        floor.push_back(ch.level);
      }
      const auto level = assign_levels(density, cfg_.options.global_ratio, floor);
      for (std::size_t i = 0; i < ctx.chunks.size(); ++i) {
        if (level[i] == ctx.chunks[i].level) continue;
        ctx.chunks[i].level = level[i];
        ctx.chunks[i].on_storage = false;  // the stored copy is of the old precision
      }
    }
    if (functional()) {
      std::vector<int> level;
      for (const auto& ch : ctx.chunks) level.push_back(ch.level);
      result_.compressed_rel_error.push_back(attention_[call.context].compressed_error(level, kAccuracyQueryRows));
    }
    verify(0);

    // 7. Ahead-of-time swap-out in the background; unlock.
    // The I/O thread is free once this call's writes and reads are done (recompute runs beside it
    // on the accelerator); ahead-of-time writes start when the call returns.
    storage_free_s_ = std::max(storage_free_s_, call.time_s + io_wait + write_s + read_io_s);
    if (aot()) {
      storage_free_s_ = std::max(storage_free_s_, call.time_s + latency);
      std::vector<Chunk*> all;
      for (auto& ch : ctx.chunks) all.push_back(&ch);
      storage_free_s_ += write_back(all);
    }
    ctx.last_use_s = call.time_s;
    ctx.locked = false;
    return latency;
  }

  const ServiceConfig& cfg_;
  const ServiceCosts& costs_;
  ContextStore store_;
  // The last rows of a call whose attention output measures the compression error (a chunk's worth).
  static constexpr std::int64_t kAccuracyQueryRows = 16;

  runtime::PortableRng rng_;
  runtime::PortableRng text_rng_;  // functional mode: the calls' token ids
  TinyDecoder decoder_;
  std::vector<ContextAttention> attention_;
  ServiceResult result_;
  double storage_free_s_ = 0;
};

}  // namespace

ServiceResult simulate_service(const ServiceConfig& cfg, const ServiceCosts& costs, const std::vector<Call>& trace) {
  Service s(cfg, costs);
  return s.run(trace);
}

}  // namespace socsim::systems::llms
