// Shared by the HeteroLLM tests: solver parameters with the paper's standard graph lengths,
// synthetic cost tables, and the random matmuls the bounded searches are checked on.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "sim/systems/heterollm/partition_solver.h"

namespace socsim::systems::heterollm_test {

using heterollm::Partition;
using heterollm::PartTimes;
using heterollm::SolverParams;

inline SolverParams params(std::uint64_t row_align = 256) {
  SolverParams p;
  p.standard = {32, 64, 128, 256, 512, 1024};
  p.row_align = row_align;
  return p;
}

inline std::uint64_t sum(const std::vector<std::uint64_t>& v) {
  std::uint64_t s = 0;
  for (auto x : v) s += x;
  return s;
}

// Synthetic tables in abstract ticks: the NPU pays per padded row (stage performance), the GPU per
// real row, both per column share.
inline heterollm::CostFn linear(double npu_per_row, double gpu_per_row) {
  return [=](const Partition& c) {
    PartTimes t;
    const double ncols = static_cast<double>(c.npu_cols) / static_cast<double>(c.n);
    const double gcols = static_cast<double>(c.gpu_cols) / static_cast<double>(c.n);
    t.npu = static_cast<Tick>(npu_per_row * static_cast<double>(sum(c.npu_pieces)) * ncols * 1000);
    t.gpu = static_cast<Tick>(gpu_per_row * static_cast<double>(c.gpu_rows) * gcols * 1000);
    return t;
  };
}

// `cost` scaled by `f` (< 1: a lower bound).
inline heterollm::CostFn scaled(heterollm::CostFn cost, double f) {
  return [cost = std::move(cost), f](const Partition& c) {
    const PartTimes t = cost(c);
    return PartTimes{static_cast<Tick>(static_cast<double>(t.gpu) * f), static_cast<Tick>(static_cast<double>(t.npu) * f)};
  };
}

// One random matmul for the bounded searches: up to 3000 rows, up to 24 x 256 columns, a linear
// table with random per-row costs, and the solver's switches varied with the trial number.
struct BoundTrial {
  std::uint64_t m = 0, n = 0;
  heterollm::CostFn cost;
  SolverParams p;
};

inline BoundTrial random_bound_trial(std::mt19937& gen, int trial) {
  BoundTrial t;
  std::uniform_int_distribution<std::uint64_t> rows(1, 3000), cols(1, 24);
  t.m = rows(gen);
  t.n = 256 * cols(gen);
  const double npu = std::uniform_real_distribution<double>(0.5, 4)(gen), gpu = std::uniform_real_distribution<double>(0.5, 4)(gen);
  t.cost = linear(npu, gpu);
  t.p = params();
  t.p.sync = 20'000, t.p.copy = 5'000;
  t.p.decode = trial % 5 == 0;
  t.p.npu_home = trial % 2 == 0;
  t.p.cut_call = t.p.npu_home ? 30'000 : 0;
  t.p.force_split = trial % 7 == 0;
  return t;
}

}  // namespace socsim::systems::heterollm_test
