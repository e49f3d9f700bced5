#include "kernels/attention/hvx_attention_lower.h"

#include <string>

#include "kernels/softmax/softmax_lower.h"

namespace socsim::kernels {

double hvx_attention_row_packets(const hw::HvxSpec& hvx, std::uint64_t keys, std::uint64_t head_dim, ExpVariant v) {
  const std::uint64_t lanes = hvx.vector_bytes / 2;  // FP16
  const auto vectors = [lanes](std::uint64_t n) { return static_cast<double>((n + lanes - 1) / lanes); };
  const double mac = hvx.fp16_mac_packets;
  const double scores = vectors(keys) * static_cast<double>(head_dim) * mac;
  const double context = vectors(head_dim) * static_cast<double>(keys) * mac;
  return scores + hvx_softmax_row_packets(hvx, keys, v) + context;
}

NpuWork lower_attention_hvx_npu(const hw::NpuSpec& npu, const AttentionShape& s, ExpVariant v, std::uint32_t threads) {
  s.validate();
  double per_head = 0;
  for (std::uint64_t i = 0; i < s.q_len; ++i) per_head += hvx_attention_row_packets(npu.hvx, s.visible(i), s.head_dim, v);
  NpuWork w;
  const std::uint32_t t = hvx_threads(npu, threads, s.q_len);
  for (std::uint64_t h = 0; h < s.heads; ++h) w.steps.push_back(NpuStep::hvx("attention.hvx head " + std::to_string(h), per_head, t));
  return w;
}

}  // namespace socsim::kernels
