#pragma once
// HeteroLLM's profiler in prediction mode (4.3): instead of running every candidate, the NPU's
// latency is regressed over shapes by a regression tree (CART) trained on real profiles of a grid
// of shapes (the model's input widths x standard lengths x column counts). The paper times the
// GPU as FLOPs at a fixed sustained rate "in compute-bound cases" (the ~1 TFLOPS of the 8 Gen 3);
// it does not say how it times the others, which are most of a prefill's GPU parts (launch- and
// occupancy-bound kernels run far below that rate). socsim's reconstruction: a second tree over
// real GPU profiles of the same widths and columns over a row grid of its own, with the sustained
// rate and the weights' bytes (W4: 4.5 bits each with scales) at the port rate as its floors.
// Parts are predicted alone; the step replay shares DRAM between them (step_context.h).
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"
#include "sim/systems/heterollm/partition_jobs.h"
#include "sim/systems/heterollm/partition_solver.h"

namespace socsim::systems::heterollm {

// A least-squares regression tree over fixed-size feature vectors: each split is the (feature,
// threshold) that most reduces the squared error; leaves predict their mean.
class RegressionTree {
 public:
  using Features = std::array<double, 3>;
  void fit(const std::vector<Features>& x, const std::vector<double>& y, int max_depth = 12, std::size_t min_leaf = 1);
  double predict(const Features& f) const;
  std::size_t leaves() const;

 private:
  struct Node {
    int feature = -1;  // -1: a leaf
    double threshold = 0, value = 0;
    int left = -1, right = -1;
  };
  int build(std::vector<std::size_t>& idx, std::size_t begin, std::size_t end, int depth, const std::vector<Features>& x,
            const std::vector<double>& y, int max_depth, std::size_t min_leaf);
  std::vector<Node> nodes_;
};

class PredictionProfiler {
 public:
  static constexpr std::uint64_t kGpuGridRows = 16384;  // the GPU tree's largest profiled row count
  // Trains the NPU and GPU trees on real profiles of rows in `rows` (graph lengths), input widths `ks`
  // and a geometric grid of column counts up to `max_cols`.
  PredictionProfiler(const hw::SocSpec& soc, const model::ModelConfig& model, const std::vector<std::uint64_t>& rows,
                     const std::vector<std::uint64_t>& ks, std::uint64_t max_cols, double gpu_flops);
  PartTimes time(const Partition& p) const;
  Tick npu_piece(std::uint64_t rows, std::uint64_t k, std::uint64_t cols) const;
  Tick gpu_part(std::uint64_t rows, std::uint64_t k, std::uint64_t cols) const;
  std::size_t training_points() const { return points_; }

 private:
  hw::SocSpec soc_;
  double gpu_flops_;
  RegressionTree npu_;  // log(ps per multiply-add of the padded piece) over log shape
  RegressionTree gpu_;  // log(ps per multiply-add of the GPU part, its submission included)
  std::size_t points_ = 0;
};

}  // namespace socsim::systems::heterollm
