#include "kernels/attention/attention_lower.h"

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/elementwise/op_costs.h"
#include "kernels/topk/ratio_row_sums.h"

namespace socsim::kernels {

namespace {

// Unit-neutral description of one phase; the CPU and GPU faces differ only in packaging.
struct Phase {
  std::string name;
  double ops = 0;
  std::uint64_t bytes = 0;
  bool gemm = false;
  bool streaming = false;  // GPU: a memory-bound pass without a tile ramp (gpu_kernel.h)
};

constexpr double kSoftmaxOpsPerScore = 4 + kCpuExpOps;  // max, subtract, exp, sum, scale

std::vector<Phase> full_phases(const AttentionShape& s) {
  s.validate();
  const auto heads = static_cast<double>(s.heads), d = static_cast<double>(s.head_dim);
  const auto vt = static_cast<double>(s.visible_total());
  // The GEMMs cover the whole rectangle (a mat-mul does not know the mask; attention_lower.h).
  const auto rect = static_cast<double>(s.q_len * s.keys_used());
  // Q and O move as FP32; K and V come from the FP16 KV cache (the engines' default, and what
  // memory_fit.cpp sizes), read once per query head: these are mat-mul kernels per head, and the
  // engines that run them do not share a GQA group's keys between its heads (llama.cpp's mul_mat
  // broadcasts K/V by index, each head re-reading its group's rows; mllm's CPU KV cache stores
  // the group's copies outright), so a long or batched context, larger than the caches, streams
  // the keys once per query head.
  const std::uint64_t q_bytes = s.heads * s.q_len * s.head_dim * 4, kv_bytes = s.heads * s.keys_used() * s.head_dim * 2;
  return {{"attention.qk", heads * 2 * d * rect, q_bytes + kv_bytes, true},
          {"attention.softmax", heads * (vt * kSoftmaxOpsPerScore + static_cast<double>(s.q_len)), 0, false},
          {"attention.pv", heads * 2 * d * rect, kv_bytes + q_bytes, true}};
}

std::vector<Phase> sparse_phases(const AttentionShape& s, std::uint64_t kept) {
  s.validate();
  const auto d = static_cast<double>(s.head_dim);
  const std::uint64_t rows = std::min(kept, s.heads * s.keys_used());
  // A gather of scattered K/V rows with a dot product each: memory-bound, no tiles.
  return {{"sparse_attention", static_cast<double>(kept) * (4 * d + kSoftmaxOpsPerScore) + static_cast<double>(s.heads * s.q_len),
           s.heads * s.q_len * s.head_dim * 4 * 2 + rows * s.head_dim * 4 * 2, false, true}};
}

std::vector<Phase> block_phases(const AttentionShape& s, const BlockSparseParams& p) {
  s.validate();
  const std::uint64_t B = p.block, qb = query_blocks(s, B), kb = (s.keys_used() + B - 1) / B, d = s.head_dim;
  const auto heads = static_cast<double>(s.heads);
  double select = 0, scores = 0;
  std::uint64_t kv_rows = 0;
  for (std::uint64_t a = 0; a < qb; ++a) {
    const std::uint64_t c = candidate_key_blocks(s, B, a), k = blocks_to_keep(p, c);
    const std::uint64_t r = std::min(s.q_len, (a + 1) * B) - a * B;
    select += topk_row_ops(c, k);
    scores += static_cast<double>(r * k * B);
    kv_rows += k * B;
  }
  const auto dd = static_cast<double>(d);
  return {{"block_sparse.pool", heads * static_cast<double>((s.q_len + s.keys_used()) * d + (qb + kb) * d),
           s.heads * (s.q_len + s.keys_used()) * d * 4, false, true},
          {"block_sparse.estimate", heads * 2 * dd * static_cast<double>(qb * kb), 0, false},
          {"block_sparse.select", heads * select, 0, false},
          {"block_sparse.attention", heads * (scores * (4 * dd + kSoftmaxOpsPerScore) + static_cast<double>(s.q_len)),
           s.heads * (s.q_len * d * 4 * 2 + kv_rows * d * 4 * 2), false}};
}

CpuWork to_cpu(const std::vector<Phase>& phases, const AttentionShape& s, std::uint32_t threads, hw::DType gemm_dtype = hw::DType::kFp32) {
  CpuWork w;
  w.threads = std::max<std::uint32_t>(1, threads);
  for (const auto& ph : phases) {
    hw::CpuTask t;
    t.name = ph.name;
    t.ops = ph.ops;
    t.dtype = ph.gemm ? gemm_dtype : hw::DType::kFp32;
    t.dram_bytes = ph.bytes;
    t.rows = ph.gemm ? s.q_len : 0;
    w.tasks.push_back(t);
  }
  return w;
}

GpuWork to_gpu(const std::vector<Phase>& phases, const AttentionShape& s) {
  GpuWork w;
  for (const auto& ph : phases) {
    hw::GpuKernel k;
    k.name = ph.name;
    k.flops = ph.ops;
    k.dtype = hw::DType::kFp32;
    k.dram_bytes = ph.bytes;
    k.rows = ph.gemm ? s.heads * s.q_len : 0;
    k.streaming = ph.streaming;
    w.kernels.push_back(k);
  }
  return w;
}

}  // namespace

CpuWork lower_attention_cpu(const AttentionShape& s, std::uint32_t threads, hw::DType gemm_dtype) {
  if (gemm_dtype != hw::DType::kFp32 && gemm_dtype != hw::DType::kFp16) throw std::invalid_argument("CPU attention: GEMMs in FP32 or FP16 only");
  return to_cpu(full_phases(s), s, threads, gemm_dtype);
}
GpuWork lower_attention_gpu(const AttentionShape& s) { return to_gpu(full_phases(s), s); }

std::uint64_t sparse_kept_total(const AttentionShape& s, double ratio) {
  k_for_ratio(ratio, 0);  // validates
  const double capped = std::min(ratio, 1.0);
  std::uint64_t kept = 0;
  // A ratio of whole parts per million: the sum in closed form (the loop's integers).
  const auto ppm = s.q_len > 0 && s.visible(s.q_len - 1) <= kMaxExactVisible ? ratio_as_ppm(capped) : std::nullopt;
  if (ppm) {
    kept = ratio_row_sums(*ppm, s.visible(0), s.visible(s.q_len - 1)).kept;
  } else {
    for (std::uint64_t i = 0; i < s.q_len; ++i) kept += k_for_capped_ratio(capped, s.visible(i));
  }
  return kept * s.heads;
}

CpuWork lower_sparse_attention_cpu(const AttentionShape& s, std::uint64_t kept, std::uint32_t threads) {
  return to_cpu(sparse_phases(s, kept), s, threads);
}
GpuWork lower_sparse_attention_gpu(const AttentionShape& s, std::uint64_t kept) { return to_gpu(sparse_phases(s, kept), s); }

CpuWork lower_block_sparse_attention_cpu(const AttentionShape& s, const BlockSparseParams& p, std::uint32_t threads) {
  return to_cpu(block_phases(s, p), s, threads);
}
GpuWork lower_block_sparse_attention_gpu(const AttentionShape& s, const BlockSparseParams& p) { return to_gpu(block_phases(s, p), s); }

}  // namespace socsim::kernels
