#include "sim/systems/heterollm/prediction_profiler.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace socsim::systems::heterollm {

void RegressionTree::fit(const std::vector<Features>& x, const std::vector<double>& y, int max_depth, std::size_t min_leaf) {
  if (x.empty() || x.size() != y.size()) throw std::invalid_argument("RegressionTree::fit: no or mismatched samples");
  nodes_.clear();
  std::vector<std::size_t> idx(x.size());
  std::iota(idx.begin(), idx.end(), 0);
  build(idx, 0, idx.size(), 0, x, y, max_depth, std::max<std::size_t>(1, min_leaf));
}

int RegressionTree::build(std::vector<std::size_t>& idx, std::size_t begin, std::size_t end, int depth,
                          const std::vector<Features>& x, const std::vector<double>& y, int max_depth, std::size_t min_leaf) {
  const int self = static_cast<int>(nodes_.size());
  nodes_.push_back({});
  double sum = 0;
  for (std::size_t i = begin; i < end; ++i) sum += y[idx[i]];
  const double n = static_cast<double>(end - begin);
  nodes_[self].value = sum / n;
  if (depth >= max_depth || end - begin < 2 * min_leaf) return self;
  // The split minimizing the children's squared error (= maximizing sum_l^2/n_l + sum_r^2/n_r).
  double best_gain = 0;
  int best_f = -1;
  double best_t = 0;
  const double parent = sum * sum / n;
  for (int f = 0; f < static_cast<int>(Features{}.size()); ++f) {
    std::sort(idx.begin() + static_cast<std::ptrdiff_t>(begin), idx.begin() + static_cast<std::ptrdiff_t>(end),
              [&](std::size_t a, std::size_t b) { return x[a][static_cast<std::size_t>(f)] < x[b][static_cast<std::size_t>(f)]; });
    double left = 0;
    for (std::size_t i = begin; i + 1 < end; ++i) {
      left += y[idx[i]];
      const std::size_t nl = i + 1 - begin, nr = end - i - 1;
      const double a = x[idx[i]][static_cast<std::size_t>(f)], b = x[idx[i + 1]][static_cast<std::size_t>(f)];
      if (a == b || nl < min_leaf || nr < min_leaf) continue;
      const double right = sum - left;
      const double gain = left * left / static_cast<double>(nl) + right * right / static_cast<double>(nr) - parent;
      if (gain > best_gain * (1 + 1e-12) + 1e-300) best_gain = gain, best_f = f, best_t = (a + b) / 2;
    }
  }
  if (best_f < 0) return self;
  const auto mid = std::partition(idx.begin() + static_cast<std::ptrdiff_t>(begin), idx.begin() + static_cast<std::ptrdiff_t>(end),
                                  [&](std::size_t i) { return x[i][static_cast<std::size_t>(best_f)] < best_t; });
  const auto m = static_cast<std::size_t>(mid - idx.begin());
  nodes_[self].feature = best_f;
  nodes_[self].threshold = best_t;
  const int l = build(idx, begin, m, depth + 1, x, y, max_depth, min_leaf);
  const int r = build(idx, m, end, depth + 1, x, y, max_depth, min_leaf);
  nodes_[self].left = l, nodes_[self].right = r;
  return self;
}

double RegressionTree::predict(const Features& f) const {
  if (nodes_.empty()) throw std::logic_error("RegressionTree::predict before fit");
  int i = 0;
  while (nodes_[static_cast<std::size_t>(i)].feature >= 0) {
    const Node& n = nodes_[static_cast<std::size_t>(i)];
    i = f[static_cast<std::size_t>(n.feature)] < n.threshold ? n.left : n.right;
  }
  return nodes_[static_cast<std::size_t>(i)].value;
}

std::size_t RegressionTree::leaves() const {
  return static_cast<std::size_t>(std::count_if(nodes_.begin(), nodes_.end(), [](const Node& n) { return n.feature < 0; }));
}

namespace {

RegressionTree::Features features(std::uint64_t rows, std::uint64_t k, std::uint64_t cols) {
  return {std::log2(static_cast<double>(rows)), std::log2(static_cast<double>(k)), std::log2(static_cast<double>(cols))};
}

double macs(std::uint64_t rows, std::uint64_t k, std::uint64_t cols) {
  return static_cast<double>(rows) * static_cast<double>(k) * static_cast<double>(cols);
}

}  // namespace

PredictionProfiler::PredictionProfiler(const hw::SocSpec& soc, const model::ModelConfig& model,
                                       const std::vector<std::uint64_t>& rows, const std::vector<std::uint64_t>& ks,
                                       std::uint64_t max_cols, double gpu_flops)
    : soc_(soc), gpu_flops_(gpu_flops) {
  if (!(gpu_flops > 0)) throw std::invalid_argument("PredictionProfiler: GPU rate must be > 0");
  PartitionProfiler real(soc, model);
  // The GPU takes any row count (a batch's decode, a sequence cut's rest, a long prompt), the NPU
  // only its graphs' lengths: the GPU's rows are their own grid, powers of two and three-quarter
  // points up to kGpuGridRows (past it the profiled time per multiply-add is flat; a tree holds its
  // last leaf beyond the grid, and the NPU's lengths stopped at 1024: 4096 rows were 12% high).
  std::vector<std::uint64_t> gpu_rows;
  for (std::uint64_t r = 1; r <= kGpuGridRows; r *= 2) {
    gpu_rows.push_back(r);
    if (r >= 4) gpu_rows.push_back(r * 3 / 4);
  }
  std::sort(gpu_rows.begin(), gpu_rows.end());
  // Each unit's tree: one profile of the unit's whole part per (rows, width, columns) of its grid.
  const auto train = [&](RegressionTree& tree, const std::vector<std::uint64_t>& grid_rows, bool on_npu) {
    std::vector<RegressionTree::Features> x;
    std::vector<double> y;
    for (auto r : grid_rows) {
      for (auto k : ks) {
        for (std::uint64_t c = 256;; c = std::min(max_cols, c * 2)) {
          Partition p;
          p.kind = on_npu ? CutKind::kNpuOnly : CutKind::kGpuOnly;
          p.m = r, p.k = k, p.n = c;
          if (on_npu) {
            p.npu_pieces = {r}, p.npu_rows = r, p.npu_cols = c;
          } else {
            p.gpu_rows = r, p.gpu_cols = c;
          }
          const PartTimes t = real.time(p);
          x.push_back(features(r, k, c));
          y.push_back(std::log(static_cast<double>(on_npu ? t.npu : t.gpu) / macs(r, k, c)));
          if (c >= max_cols) break;
        }
      }
    }
    points_ += x.size();
    tree.fit(x, y, 14, 1);
  };
  train(npu_, rows, true);
  train(gpu_, gpu_rows, false);
}

Tick PredictionProfiler::npu_piece(std::uint64_t rows, std::uint64_t k, std::uint64_t cols) const {
  return static_cast<Tick>(std::exp(npu_.predict(features(rows, k, cols))) * macs(rows, k, cols));
}

Tick PredictionProfiler::gpu_part(std::uint64_t rows, std::uint64_t k, std::uint64_t cols) const {
  // The paper's rule, FLOPs at the sustained rate, holds where the kernel is compute-bound: a
  // floor. Smaller kernels run far below that rate (launch and occupancy: "performance is
  // linear in size", 3.1), so the tree over real profiles predicts them: at 1 TFLOPS a 64-token
  // qkv of qwen2-0.5b on the 8 Gen 2 was predicted at 147 us and runs about 627.
  // Nor faster than its weights stream through the GPU's port (decode's kernels are bound there).
  const Tick compute = seconds_to_ticks_ceil(2.0 * macs(rows, k, cols) / gpu_flops_) + soc_.gpu.submit;
  const Tick memory = seconds_to_ticks_ceil(static_cast<double>(k * cols) * 4.5 / 8.0 / soc_.gpu.port_bandwidth) + soc_.gpu.submit;
  return std::max({compute, memory, static_cast<Tick>(std::exp(gpu_.predict(features(rows, k, cols))) * macs(rows, k, cols))});
}

PartTimes PredictionProfiler::time(const Partition& p) const {
  PartTimes t;
  if (p.uses_gpu()) t.gpu = gpu_part(p.gpu_rows, p.k, p.gpu_cols);
  if (p.uses_npu()) {
    for (auto piece : p.npu_pieces) t.npu += npu_piece(piece, p.k, p.npu_cols);
  }
  return t;
}

}  // namespace socsim::systems::heterollm
