#pragma once
// The attention kernels compute each head on its own: a head reads its rows of Q and its KV
// head's keys and values and writes only its rows of the output. So bands of heads can run on
// the GEMM threads and give, bit for bit, what one thread gives; a call too small to repay
// starting a thread (tens of microseconds, more than a small model's decode step takes) runs on
// the caller's.
#include <cstdint>

#include "kernels/attention/attention_shape.h"
#include "kernels/gemm/packed_gemm.h"

namespace socsim::kernels {

// Multiply-adds (Q.K^T and P.V over the visible keys) below which a call stays on one thread.
inline constexpr double kAttentionParallelMacs = 1 << 21;

// fn(h0, h1) for bands [h0, h1) covering the heads of s.
template <class F>
void for_head_bands(const AttentionShape& s, F&& fn) {
  const double macs = 2.0 * static_cast<double>(s.heads) * static_cast<double>(s.visible_total()) * static_cast<double>(s.head_dim);
  parallel_bands(s.heads, threads_for(macs, kAttentionParallelMacs, s.heads), fn);
}

}  // namespace socsim::kernels
