#include "kernels/llamacpp/llamacpp_lower.h"

#include <algorithm>
#include <stdexcept>

#include "kernels/llamacpp/vec_dot_costs.h"

namespace socsim::kernels::llamacpp {

namespace {

// A task the threads share by rows, in equal parts (ggml's static split).
hw::CpuTask split_task(const char* name, double ops, double uops_per_op, std::uint64_t bytes) {
  hw::CpuTask t;
  t.name = name;
  t.ops = ops;
  t.dtype = hw::DType::kInt8;  // unused: the instruction mix sets the rate
  t.simd_uops_per_op = uops_per_op;
  t.even_split = true;
  t.dram_bytes = bytes;
  return t;
}

// A conversion thread 0 does alone in a matmul's INIT phase (the others wait at the barrier).
hw::CpuTask init_task(const char* name, double elements, double uops_per_element, std::uint64_t bytes) {
  hw::CpuTask t = split_task(name, elements, uops_per_element, bytes);
  t.even_split = false;
  t.max_threads = 1;
  return t;
}

}  // namespace

std::uint64_t padded_keys(const AttentionShape& s) { return (s.keys_used() + kKvPad - 1) / kKvPad * kKvPad; }

CpuWork lower_kquant_matmul_cpu(const GemmDims& d, double q6_k_fraction, std::uint32_t threads) {
  if (d.m <= 0 || d.k <= 0 || d.n <= 0) throw std::invalid_argument("K-quant matmul: m, k and n must be > 0");
  if (!(q6_k_fraction >= 0 && q6_k_fraction <= 1)) throw std::invalid_argument("K-quant matmul: the Q6_K fraction must be in [0, 1]");
  const auto m = static_cast<std::uint64_t>(d.m), k = static_cast<std::uint64_t>(d.k), n = static_cast<std::uint64_t>(d.n);
  const double blocks_per_row = static_cast<double>(k) / kSuperBlock;
  const double f = q6_k_fraction;
  CpuWork w;
  w.threads = std::max<std::uint32_t>(1, threads);
  // INIT: thread 0 quantizes the FP32 activations to Q8_K, scalar.
  hw::CpuTask q;
  q.name = "quantize_q8_K";
  q.ops = static_cast<double>(m * k) * kQ8KScalarOpsPerElement;
  q.scalar = true;
  q.max_threads = 1;
  q.dram_bytes = static_cast<std::uint64_t>(static_cast<double>(m * k) * (4 + kQ8KBytesPerBlock / kSuperBlock));
  w.tasks.push_back(q);
  // The dots: the weights once per block of 16 columns, the output once. Rows that super-blocks
  // cannot tile take llama.cpp's fallback types (Q5_0 for Q4_K, Q8_0 for Q6_K).
  const bool k_quant = k % static_cast<std::uint64_t>(kSuperBlock) == 0;
  const double low_uops = k_quant ? kQ4KUopsPerBlock : kQ5_0UopsPer256, high_uops = k_quant ? kQ6KUopsPerBlock : kQ8_0UopsPer256;
  const double low_bytes = k_quant ? kQ4KBytesPerBlock : kQ5_0BytesPer256, high_bytes = k_quant ? kQ6KBytesPerBlock : kQ8_0BytesPer256;
  const double weight_bytes = blocks_per_row * static_cast<double>(n) * ((1 - f) * low_bytes + f * high_bytes);
  const std::uint64_t column_blocks = (m + kColumnBlock - 1) / kColumnBlock;
  const auto bytes = static_cast<std::uint64_t>(weight_bytes * static_cast<double>(column_blocks)) + m * n * 4;
  const double uops_per_op = ((1 - f) * low_uops + f * high_uops) / (2 * kSuperBlock);
  w.tasks.push_back(split_task(k_quant ? "vec_dot_q4_K_M" : "vec_dot_q5_0_q8_0", d.flops(), uops_per_op, bytes));
  w.tasks.back().simd_uops_per_op_no_dotprod = uops_per_op + kSdotPer256 * (kEmulatedSdotUops - 1) / (2 * kSuperBlock);
  return w;
}

AttentionWork lower_attention_cpu(const AttentionShape& s, std::uint32_t threads) {
  s.validate();
  const std::uint64_t keys = padded_keys(s), heads = s.heads, d = s.head_dim, rows = s.q_len;
  const double scores = static_cast<double>(heads * rows * keys);
  const double visible = static_cast<double>(heads * s.visible_total());
  AttentionWork w;
  w.scores.threads = w.softmax.threads = w.context.threads = std::max<std::uint32_t>(1, threads);
  // K.Q: one F16 dot of head_dim per (head, query, key); K read per query head.
  const double qk_dots = scores;
  w.scores.tasks.push_back(init_task("attention.qk.q_to_f16", static_cast<double>(heads * rows * d), kF32ToF16UopsPerElement,
                                     heads * rows * d * (4 + 2)));
  w.scores.tasks.push_back(split_task("attention.qk.vec_dot_f16", 2 * qk_dots * static_cast<double>(d),
                                      (kF16DotUopsPerElement * static_cast<double>(d) + kF16DotReduceUops) / (2 * static_cast<double>(d)),
                                      heads * keys * d * 2 + heads * rows * d * 2 + heads * rows * keys * 4));
  // Softmax over the full width: vector passes at the FP32 rate, then the scalar LUT loop.
  w.softmax.tasks.push_back(split_task("attention.softmax.vector", scores * kSoftmaxVectorOpsPerScore, kSoftmaxVectorUopsPerOp,
                                       heads * rows * keys * 4 * 2));
  hw::CpuTask lut;
  lut.name = "attention.softmax.exp_lut";
  lut.ops = (scores - visible) * kSoftmaxScalarOpsMasked + visible * kSoftmaxScalarOpsVisible;
  lut.scalar = true;
  lut.even_split = true;
  w.softmax.tasks.push_back(lut);
  // V.P: the scores to FP16 on thread 0, then one F16 dot over the keys per (head, query, dim).
  const double pv_dots = static_cast<double>(heads * rows * d);
  w.context.tasks.push_back(init_task("attention.pv.p_to_f16", scores, kF32ToF16UopsPerElement, heads * rows * keys * (4 + 2)));
  w.context.tasks.push_back(split_task("attention.pv.vec_dot_f16", 2 * pv_dots * static_cast<double>(keys),
                                       (kF16DotUopsPerElement * static_cast<double>(keys) + kF16DotReduceUops) /
                                           (2 * static_cast<double>(keys)),
                                       heads * keys * d * 2 + heads * rows * keys * 2 + heads * rows * d * 4));
  return w;
}

double q4_k_m_q6_k_fraction(std::string_view op_name, std::uint64_t layers) {
  if (op_name == "lm_head") return 1.0;
  if (op_name != "v_proj" && op_name != "down_proj" && op_name != "fc2") return 0.0;
  if (layers == 0) return 0.0;
  std::uint64_t more = 0;
  for (std::uint64_t i = 0; i < layers; ++i) more += use_more_bits(i, layers) ? 1 : 0;
  return static_cast<double>(more) / static_cast<double>(layers);
}

bool use_more_bits(std::uint64_t layer, std::uint64_t layers) {
  const auto i = static_cast<std::int64_t>(layer), n = static_cast<std::int64_t>(layers);
  return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

}  // namespace socsim::kernels::llamacpp
