#pragma once
// Lowered work per (unit, precision, threads, op): the decoder layers of one forward pass have
// the same ops with the same shapes, so an op is lowered once per pass instead of once per layer.
// The work's names carry the op's name, so the name is part of the key, less a per-head suffix
// (".h<N>", shadowAttn's per-head ops; job_profiler.h's label_stem): heads of one shape share
// their work, lowered under the stem (the head shows in the job's name, not its tasks').
#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/core/field_hash.h"
#include "sim/runtime/lowering/attention_lowering.h"
#include "sim/runtime/op_lowering.h"

namespace socsim::runtime::lowering {

class LoweringCache {
 public:
  LoweringCache(const model::ModelConfig& m, const hw::NpuSpec& npu) : model_(m), npu_(npu), attention_parts_(npu) {}

  // References stay valid for the cache's lifetime.
  const kernels::CpuWork& cpu(const model::OpDesc& op, Precision p, std::uint32_t threads, const kernels::AttentionShape* attention,
                              CpuEngine engine = CpuEngine::kOptimized);
  const kernels::GpuWork& gpu(const model::OpDesc& op, Precision p, const kernels::AttentionShape* attention);
  const NpuOpWork& npu(const model::OpDesc& op, Precision p, const kernels::AttentionShape* attention,
                       const NpuKernelChoice& choice = {});

  std::size_t size() const { return cpu_.size() + gpu_.size() + npu_work_.size(); }
  // Whether the cache lowers for exactly these objects (a user of a cache built elsewhere checks
  // that it lowers for the same model and NPU, not merely equal ones).
  bool built_for(const model::ModelConfig& m, const hw::NpuSpec& npu) const { return &m == &model_ && &npu == &npu_; }
  // Host bytes of the NPU work held (kernels::host_bytes): the entries that can be large (an
  // attention kernel's steps, per head and key chunk: 0.4 MB for a decode step of 16 sequences
  // at 1k keys, 7 MB for their prompt). CPU and GPU work is a few tasks or kernels per op.
  std::uint64_t npu_bytes() const { return npu_bytes_; }
  // Forgets every entry (references handed out become invalid: call only when no job runs).
  void clear() {
    cpu_.clear();
    gpu_.clear();
    npu_work_.clear();
    npu_bytes_ = 0;
  }

 private:
  struct Key {
    int precision = 0;
    std::uint32_t threads = 0;
    int kind = 0;
    std::uint32_t name = 0;  // the stem's id (name_id): a lookup compares integers, not strings
    std::uint64_t m = 0, k = 0, n = 0, batch = 0, elements = 0, weight_params = 0;
    std::uint64_t heads = 0, kv_heads = 0, head_dim = 0, q_len = 0, q_pos0 = 0, kv_len = 0;  // softmax: its attention
    NpuKernelChoice npu_kernels;  // NPU only
    CpuEngine cpu_engine = CpuEngine::kOptimized;  // CPU only
    bool operator==(const Key&) const = default;
  };
  // Field by field (a run looks its ops up tens of thousands of times: a hash and one comparison
  // instead of a tree walk comparing twenty fields at each level).
  struct KeyHash {
    std::size_t operator()(const Key& k) const;
  };
  Key key_of(const model::OpDesc& op, Precision p, std::uint32_t threads, const kernels::AttentionShape* attention);
  // Ids of the op names met so far, in the order met (a run's ops have a few dozen names).
  std::uint32_t name_id(std::string_view stem);

  // The stems' ids in an open-addressed table (linear probing, at most half full): a run meets a
  // few dozen stems and looks one up for every op it executes, which a node-based map answered
  // through a pointer chase per lookup.
  struct NameSlot {
    std::uint64_t hash = 0;
    std::uint32_t id = 0;
    bool used = false;
  };
  std::vector<NameSlot> name_slots_;  // (made on first use: an executor that shares another cache never uses its own)
  std::vector<std::string> names_;  // by id

  const model::ModelConfig& model_;
  const hw::NpuSpec& npu_;
  // Node-based: references to the work stay valid as the tables grow.
  std::unordered_map<Key, kernels::CpuWork, KeyHash> cpu_;
  std::unordered_map<Key, kernels::GpuWork, KeyHash> gpu_;
  std::unordered_map<Key, NpuOpWork, KeyHash> npu_work_;
  std::uint64_t npu_bytes_ = 0;
  NpuAttentionParts attention_parts_;
};

}  // namespace socsim::runtime::lowering
