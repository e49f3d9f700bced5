#pragma once
// How far the system's numbers are from the FP32 reference, at the positions whose logits the
// run produces (forward_shape.h):
//   hidden_rel_error      ||h_sys - h_ref||_F / ||h_ref||_F of the final-normed hidden states
//   logits_rel_error      the same over the logits
//   logits_max_abs_error  max |logit_sys - logit_ref|
//   top1_agreement        fraction of positions where the two argmaxes agree (greedy decoding
//                         would pick the same token)
// Logits are compared block by block of the vocabulary as the head produces them, so a 150k
// vocabulary never needs all positions' logits in memory at once.
#include <cstdint>
#include <vector>

#include "kernels/tensor/tensor.h"

namespace socsim::functional {

struct AccuracyMetrics {
  double hidden_rel_error = 0, logits_rel_error = 0, logits_max_abs_error = 0, top1_agreement = 0;
  std::uint64_t positions = 0;
};

// ||a - ref||_F / ||ref||_F over two equal-shape F32 tensors (0 when both are zero).
double relative_error(const kernels::Tensor& a, const kernels::Tensor& ref);
// Elements of an F32 tensor that are NaN or infinite.
std::uint64_t count_non_finite(const kernels::Tensor& a);

class LogitsComparison {
 public:
  explicit LogitsComparison(std::uint64_t positions);
  // Vocabulary columns [col0, col0 + cols) of both runs' logits, each [positions x cols] row-major.
  // Blocks must come in ascending column order (ties in the argmax go to the lowest id).
  void add_block(const float* sys, const float* ref, std::uint64_t cols, std::uint64_t col0);
  double rel_error() const;
  double max_abs_error() const { return max_abs_; }
  double top1_agreement() const;
  // The system's greedy token (its logits' argmax) at each position, once every block is in.
  std::vector<std::uint64_t> system_top1() const;
  // Logits that were NaN or infinite, the system's and the reference's.
  std::uint64_t system_non_finite() const { return sys_non_finite_; }
  std::uint64_t reference_non_finite() const { return ref_non_finite_; }

 private:
  struct Best {
    float value = 0;
    std::uint64_t id = 0;
    bool set = false;
  };
  double diff_sq_ = 0, ref_sq_ = 0, max_abs_ = 0;
  std::uint64_t sys_non_finite_ = 0, ref_non_finite_ = 0;
  std::vector<Best> sys_best_, ref_best_;
};

}  // namespace socsim::functional
