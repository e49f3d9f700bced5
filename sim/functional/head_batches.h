#pragma once
// The system's logits of every head position, one block of the head's columns at a time.
// Consecutive head groups whose head computes each row on its own share one multiplication of up
// to max_rows rows: the same bits as group by group (linear.h's row_independent). Per-tensor W8A8
// heads batch too, each group's rows quantized with its own activation scale
// (Linear::apply_w8a8_row_blocks). A group whose precision differs from the one before starts a
// new batch. A group of more than max_rows rows (a batch of more sequences) is a batch alone.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/tensor/tensor.h"
#include "sim/functional/linear.h"
#include "sim/functional/plan_forward.h"

namespace socsim::functional {

class HeadBatches {
 public:
  // groups: PlanForward::head_groups, each [sequences x hidden], alive as long as this object
  // (it keeps a reference); sequences >= 1.
  HeadBatches(const std::vector<HeadGroup>& groups, std::uint64_t sequences, std::uint64_t hidden,
              std::uint64_t max_rows = PlanForward::kBatchRows);

  // F32 [groups x sequences rows, cols]: the head block `head` (its cols output columns) applied
  // to every group's rows in that group's precision.
  kernels::Tensor logits(Linear& head, std::uint64_t cols) const;
  std::size_t batches() const { return batches_.size(); }

 private:
  struct Batch {
    std::size_t first, count;
    kernels::Tensor hidden;     // the groups' rows, in order
    std::vector<float> scales;  // W8A8: each group's activation scale
  };
  const std::vector<HeadGroup>& groups_;
  std::uint64_t sequences_;
  std::vector<Batch> batches_;
};

}  // namespace socsim::functional
