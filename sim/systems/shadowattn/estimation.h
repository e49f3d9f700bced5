#pragma once
// shadowAttn's two-stage attention for one head as compute (functional mode and tests):
//   estimate_int8   Q and K quantized with a bucket's scales (symmetric, x / scale rounded and
//                   saturated to [-127, 127]), raw INT32 Q.K^T [m, n] (no 1/sqrt(d), no mask)
//   topk_recall     |kept ∩ reference| / |reference| over rows (kept and reference lists of equal
//                   k per row; 1 when the reference is empty)
//   shadow_head     estimation -> per-row top-k (causal positions skipped, k = ceil(ratio x
//                   visible)) -> FP32 sparse attention; with the recall against the FP32 Q.K^T top-k
//                   and the FP32 full attention output for the error
// q [m, d], k/v [n, d] F32; queries at positions p0.. (n = p0 + m).
#include <cstdint>

#include "kernels/tensor/tensor.h"
#include "kernels/topk/topk.h"
#include "sim/systems/shadowattn/calibration.h"

namespace socsim::systems::shadowattn {

// absmax / 127 of a tensor (0 -> 1).
double absmax_scale(const kernels::Tensor& t);
kernels::Tensor estimate_int8(const kernels::Tensor& q, const kernels::Tensor& k, ScalePair scales);
kernels::Tensor scores_f32(const kernels::Tensor& q, const kernels::Tensor& k);
double topk_recall(const kernels::RowIndices& kept, const kernels::RowIndices& reference);

struct HeadResult {
  kernels::Tensor out;             // [m, d]
  kernels::RowIndices kept;        // per row
  double recall = 0;               // vs the FP32 scores' top-k with the same k
  std::uint64_t reference_size = 0;
};
// `scales`: the bucket's (q, k) scales; `nullptr` = FP32 estimation (cg-sparse).
HeadResult sparse_head(const kernels::Tensor& q, const kernels::Tensor& k, const kernels::Tensor& v, std::uint64_t p0, double ratio,
                       const ScalePair* scales);

}  // namespace socsim::systems::shadowattn
