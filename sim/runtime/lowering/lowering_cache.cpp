#include "sim/runtime/lowering/lowering_cache.h"

#include "sim/core/field_hash.h"
#include "sim/core/host_memory.h"
#include "sim/runtime/job_profiler.h"

namespace socsim::runtime::lowering {

namespace {

// The op as lowered: its name without a per-head suffix, so the work's names (which carry the
// op's name) are the same whichever head of a shape is lowered first.
model::OpDesc stemmed(const model::OpDesc& op) {
  model::OpDesc s = op;
  s.name = std::string(label_stem(op.name));
  return s;
}

}  // namespace

std::size_t LoweringCache::KeyHash::operator()(const Key& k) const {
  // The fields that tell a run's ops apart; the kernel choices and engines rarely differ within one.
  return hash_fields({std::uint64_t(k.name), std::uint64_t(k.kind), std::uint64_t(k.precision), k.threads, k.m, k.k, k.n, k.batch,
                      k.elements, k.weight_params, k.q_len, k.q_pos0, k.kv_len});
}

std::uint32_t LoweringCache::name_id(std::string_view stem) {
  const std::uint64_t hash = hash_string(stem);
  if (name_slots_.empty()) name_slots_.resize(64);
  std::size_t mask = name_slots_.size() - 1;  // (a power of two)
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const NameSlot& slot = name_slots_[i];
    if (!slot.used) break;
    if (slot.hash == hash && names_[slot.id] == stem) return slot.id;
  }
  const auto id = static_cast<std::uint32_t>(names_.size());
  names_.emplace_back(stem);
  if (2 * names_.size() > name_slots_.size()) {  // grown: every stem placed again
    std::vector<NameSlot> slots(2 * name_slots_.size());
    mask = slots.size() - 1;
    for (const NameSlot& slot : name_slots_) {
      if (!slot.used) continue;
      std::size_t i = slot.hash & mask;
      while (slots[i].used) i = (i + 1) & mask;
      slots[i] = slot;
    }
    name_slots_ = std::move(slots);
  }
  std::size_t i = hash & mask;
  while (name_slots_[i].used) i = (i + 1) & mask;
  name_slots_[i] = {hash, id, true};
  return id;
}

LoweringCache::Key LoweringCache::key_of(const model::OpDesc& op, Precision p, std::uint32_t threads,
                                         const kernels::AttentionShape* attention) {
  Key key;
  key.precision = static_cast<int>(p);
  key.threads = threads;
  key.kind = static_cast<int>(op.kind);
  // A per-head suffix (".h<N>", shadowAttn's top-k and sparse-attention ops) is left out, as in
  // the profiler's signature: no lowering reads it, so the heads of one shape and ratio (one head
  // index across a batch's sequences) share their work.
  key.name = name_id(label_stem(op.name));
  key.m = op.m, key.k = op.k, key.n = op.n, key.batch = op.batch, key.elements = op.elements, key.weight_params = op.weight_params;
  if (op.kind == model::OpKind::kSoftmax && attention) {
    key.heads = attention->heads, key.kv_heads = attention->kv_heads, key.head_dim = attention->head_dim;
    key.q_len = attention->q_len, key.q_pos0 = attention->q_pos0, key.kv_len = attention->kv_len;
  }
  return key;
}

const kernels::CpuWork& LoweringCache::cpu(const model::OpDesc& op, Precision p, std::uint32_t threads,
                                           const kernels::AttentionShape* attention, CpuEngine engine) {
  Key key = key_of(op, p, threads, attention);
  key.cpu_engine = engine;
  auto it = cpu_.find(key);
  if (it == cpu_.end()) it = cpu_.emplace(std::move(key), lower_op_cpu(stemmed(op), model_, p, threads, attention, engine)).first;
  return it->second;
}

const kernels::GpuWork& LoweringCache::gpu(const model::OpDesc& op, Precision p, const kernels::AttentionShape* attention) {
  Key key = key_of(op, p, 0, attention);
  auto it = gpu_.find(key);
  if (it == gpu_.end()) it = gpu_.emplace(std::move(key), lower_op_gpu(stemmed(op), model_, p, attention)).first;
  return it->second;
}

const NpuOpWork& LoweringCache::npu(const model::OpDesc& op, Precision p, const kernels::AttentionShape* attention,
                                    const NpuKernelChoice& choice) {
  Key key = key_of(op, p, 0, attention);
  key.npu_kernels = choice;
  auto it = npu_work_.find(key);
  if (it == npu_work_.end()) {
    it = npu_work_.emplace(std::move(key), lower_op_npu(stemmed(op), model_, p, npu_, attention, choice, &attention_parts_)).first;
    // Kept for the run: a long prompt's chunks each lower their own attention, and the cache can
    // grow by hundreds of MiB within a few events (the event loop's memory check would not see it).
    const std::uint64_t bytes = kernels::host_bytes(it->second.work);
    npu_bytes_ += bytes;
    note_host_growth(bytes);
  }
  return it->second;
}

}  // namespace socsim::runtime::lowering
