#include <string>

#include "kernels/attention/int8_attention.h"
#include "kernels/elementwise/op_costs.h"
#include "kernels/softmax/softmax_lower.h"

namespace socsim::kernels {

double int8_attention_row_packets(const hw::HvxSpec& hvx, std::uint64_t keys) {
  const HvxCost c{hvx};
  const double f = c.fop(), vec = static_cast<double>(c.vectors(keys, 4));
  // Per 32-lane INT32 vector: int -> float (1), dequantize scale (f), add the mask (f); after the
  // FP32 softmax, requantize P: * 255 (f), float -> int (1), pack towards UINT8 (1, charged per
  // vector though four vectors share a pack chain).
  const double dequant = HvxCost::kIop + 2 * f;
  const double requant = f + 2 * HvxCost::kIop;
  return vec * (dequant + requant) + hvx_softmax_row_packets(hvx, keys, ExpVariant::kExact);
}

NpuWork lower_attention_int8_npu(const hw::NpuSpec& npu, const AttentionShape& s, std::uint32_t threads) {
  s.validate();
  const std::uint64_t n = s.keys_used();
  NpuWork w;
  const std::uint64_t io_bytes = (s.heads * s.q_len + 2 * s.kv_heads * n) * s.head_dim + s.heads * s.q_len * s.head_dim * 2;
  w.steps.push_back(NpuStep::graph_call("attention.int8", static_cast<std::uint32_t>(s.heads) * kInt8GraphNodesPerHead, io_bytes));
  const double row = int8_attention_row_packets(npu.hvx, n);
  for (std::uint64_t h = 0; h < s.heads; ++h) {
    const std::string tag = " head " + std::to_string(h);
    w.steps.push_back(NpuStep::hmx_gemm("attention.qk" + tag, {s.q_len, s.head_dim, n, hw::DType::kInt8}));
    w.steps.push_back(NpuStep::hvx("attention.softmax" + tag, static_cast<double>(s.q_len) * row, hvx_threads(npu, threads, s.q_len)));
    w.steps.push_back(NpuStep::hmx_gemm("attention.pv" + tag, {s.q_len, n, s.head_dim, hw::DType::kInt8}));
  }
  return w;
}

std::uint64_t qk_estimate_io_bytes(std::uint64_t heads, std::uint64_t rows, std::uint64_t head_dim, std::uint64_t keys, bool fp16) {
  const std::uint64_t in = fp16 ? 2 : 1, out = fp16 ? 2 : kQkScoreBytes;
  return heads * ((rows + keys) * head_dim * in + rows * keys * out);
}

NpuWork lower_qk_estimate_npu(const AttentionShape& s) {
  s.validate();
  NpuWork w;
  w.steps.push_back(NpuStep::graph_call("qk_estimate", static_cast<std::uint32_t>(s.heads) * kQkGraphNodesPerHead, qk_estimate_io_bytes(s.heads, s.q_len, s.head_dim, s.keys_used())));
  for (std::uint64_t h = 0; h < s.heads; ++h) {
    // The raw INT32 scores go out (4 bytes each): the CPU's top-k ranks them as they are.
    w.steps.push_back(NpuStep::hmx_gemm("qk_estimate head " + std::to_string(h),
                                        {s.q_len, s.head_dim, s.keys_used(), hw::DType::kInt8, 0, kQkScoreBytes}));
  }
  return w;
}

}  // namespace socsim::kernels
