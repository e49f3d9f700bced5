#include "kernels/attention/attention_decode_lower.h"

#include <stdexcept>
#include <string>

#include "kernels/attention/attention_lower.h"

namespace socsim::kernels {

namespace {

void require_one_row(const AttentionShape& s) {
  if (s.q_len != 1) throw std::invalid_argument("decode attention has one query row per head, not " + std::to_string(s.q_len));
}

}  // namespace

CpuWork lower_attention_decode_cpu(const AttentionShape& s, std::uint32_t threads, hw::DType gemm_dtype) {
  require_one_row(s);
  CpuWork w = lower_attention_cpu(s, threads, gemm_dtype);
  for (auto& t : w.tasks) t.rows = 0;
  return w;
}

GpuWork lower_attention_decode_gpu(const AttentionShape& s) {
  require_one_row(s);
  GpuWork w = lower_attention_gpu(s);
  for (auto& k : w.kernels) {
    k.rows = 0;
    k.streaming = true;
  }
  return w;
}

}  // namespace socsim::kernels
