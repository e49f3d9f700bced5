#pragma once
// HeteroLLM's partition solver (4.3), a pure function over a cost callback so it can be tested
// without the simulator. For one matmul [m x k] x [k x n] (m = sequence rows, n = the weight's
// output columns) it enumerates the candidates on the alignment grid and keeps the one with the
// smallest
//   T_total = max(T_gpu, T_npu) + (the unit that is not home takes part ? T_sync + T_copy : 0)
// where home is the unit running the op's neighbours (the paper's formula has the GPU home:
// PPL-OpenCL extended with NPU operators, so NPU-only pays T_sync + T_copy and GPU-only nothing;
// HeteroLLM's prefill is NPU-dominant, so there the NPU is home and a GPU part pays).
// With the NPU home a GPU part also cuts the neighbours' graph in two: the graph after the op is
// one more call (`cut_call`), which the NPU issues as soon as its own part ends (fast sync: the
// graph waits for the GPU's flag inside), so the call runs while the GPU part finishes:
//   T_total = max(T_gpu + T_sync, T_npu + cut_call) + T_copy
// (socsim's reconstruction: charged after the max, a cut's call made a sequence cut whose GPU part
// ends last look 250 us slower than it runs, and a bigger TCM then gave a slower prefill).
//
// Candidates (C = the GPU's output columns, multiples of `row_align`; pieces = NPU static-graph
// lengths, each a standard length, run back to back on the NPU):
//   gpu-only        the whole op on the GPU
//   npu-only        the NPU alone over a cover of m: padded (m if standard, else the next standard
//                   length; beyond the largest, pieces of the largest with the last padded) or
//                   piped (m rounded up to `seq_align` in standard pieces back to back, npu-only's
//                   best policy)
//   row             m standard: the NPU computes n - C columns, the GPU C columns of all m rows
//   hybrid          m not covered exactly: either cover, row-cut as above
//   sequence        one standard piece s < m on the NPU, the m - s remaining rows on the GPU
//   multi-sequence  a multiple of `seq_align` p < m decomposed greedily into >= 2 standard pieces
//                   (largest first) on the NPU, m - p rows on the GPU
// In decode (`decode`: the sequence length is fixed, its NPU graph pre-built) only gpu-only,
// npu-only and row cuts exist, the NPU piece being m itself.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/core/time.h"

namespace socsim::systems::heterollm {

enum class CutKind { kGpuOnly, kNpuOnly, kRow, kHybrid, kSequence, kMultiSequence };
const char* cut_kind_name(CutKind k);

struct Partition {
  CutKind kind = CutKind::kGpuOnly;
  std::uint64_t m = 0, k = 0, n = 0;
  // NPU: graph lengths (padded rows included), in order, each over `npu_cols` output columns,
  // covering rows [0, npu_rows) of the op (npu_rows <= sum of pieces: the last may be padded).
  std::vector<std::uint64_t> npu_pieces;
  std::uint64_t npu_rows = 0, npu_cols = 0;
  // GPU: rows [gpu_row_begin, m) over `gpu_cols` columns (the last gpu_cols of n for row cuts).
  std::uint64_t gpu_row_begin = 0, gpu_rows = 0, gpu_cols = 0;
  // t_part: the paper's T_total, the candidate alone (max(T_gpu, T_npu), plus sync and copy when
  // the unit that is not home takes part). t_total: what the solver minimizes, t_part or, with
  // SolverParams::in_context, the time of the step the op runs in (step_context.h).
  Tick t_gpu = 0, t_npu = 0, t_part = 0, t_total = 0;
  bool in_step = false;  // t_total is the step's time (SolverParams::in_context)
  // solve() with lower bounds skipped running this candidate: its times are the bounds, which
  // already could not beat the chosen one.
  bool bounded_only = false;

  bool uses_gpu() const { return gpu_rows > 0 && gpu_cols > 0; }
  bool uses_npu() const { return !npu_pieces.empty() && npu_cols > 0; }
  std::string describe() const;  // "row gpu=1024/4096 cols npu=[256]"
};

struct PartTimes {
  Tick gpu = 0, npu = 0;  // each unit's part, as the candidate runs them (0 for a unit not used)
};

struct SolverParams {
  std::vector<std::uint64_t> standard;  // NPU graph lengths, ascending
  std::uint64_t row_align = 256, seq_align = 32;
  bool decode = false;
  bool allow_split = true;  // false: gpu-only and npu-only only (hetero-layer)
  Tick sync = 0, copy = 0;  // added when the unit that is not home takes part
  Tick cut_call = 0;        // with the NPU home: the graph call a GPU part's cut adds (above)
  bool npu_home = false;    // the unit running the op's neighbours (prefill: NPU, decode: GPU)
  bool force_split = false; // only split candidates when there are any (tests, ablations)
  // > 0: the one npu-only candidate runs these rows as a single piece (the NPU-home graph's
  // shape the op joins, which the plan uses), instead of the padded and piped covers.
  std::uint64_t npu_only_rows = 0;
  // When set: a candidate's T_total is this of the candidate (its t_gpu, t_npu and t_part filled):
  // the time of the step it runs in with every instance of the op partitioned so. With bounds,
  // bounded_only is set while its times are a bound's, and what it returns then must not exceed
  // what it returns for the candidate's own times (monotone in the part times, or a looser
  // replay for bounds: step_context.h).
  std::function<Tick(const Partition&)> in_context;
};

using CostFn = std::function<PartTimes(const Partition&)>;

// Fills a candidate's times from its parts' (T_total: the slower part, plus sync and copy when the
// unit that is not home takes part), as solve() does.
void set_times(Partition& c, const PartTimes& t, const SolverParams& p);

// The gpu-only time and the fastest npu-only time (alone: t_part) among `all` (solve()'s `evaluated`; 0 where
// there is none), for --explain. A single-unit candidate the search skipped holds a bound only
// (possibly the coarse one, which can read well below the time): it is costed with `cost` first.
struct SingleUnitTimes {
  Tick gpu_only = 0, npu_only = 0;
};
SingleUnitTimes single_unit_times(std::vector<Partition>& all, const SolverParams& p, const CostFn& cost);

// Every candidate with its times filled (for --explain and tests), in enumeration order.
std::vector<Partition> candidates(std::uint64_t m, std::uint64_t k, std::uint64_t n, const SolverParams& p);
// The candidate minimizing T_total; ties keep the earliest (gpu-only, npu-only, then cuts).
// `evaluated`, if given, receives every candidate with its times.
//
// `lower_bound`, if given, returns for a candidate times no larger than `cost` would (each part
// run alone, without the other's DRAM traffic: sharing only slows a part). Candidates are then
// taken in order of their bounded T_total, and one whose bound cannot beat the best so far (ties
// to the earlier candidate) is not costed: the choice is the exhaustive search's, and `cost` runs
// for the few candidates near the optimum only (HeteroLLM's real-execution profiler at batch 16
// has ~600 candidates per matmul, each a simulation). Such candidates come back bounded_only. A
// costed candidate faster than its bound shows the bounds wrong: the search is then exhaustive.
//
// `coarse_bound`, if given with `lower_bound`, returns times no larger than `lower_bound`'s and is
// cheaper: candidates are ordered by it, and `lower_bound` runs only for those whose coarse bound
// could still win (the real profiler's coarse bound computes a GPU part from its kernels instead
// of simulating it). A coarse bound above its candidate's bound makes the search start again
// from the bounds alone. The choice stays the exhaustive search's.
Partition solve(std::uint64_t m, std::uint64_t k, std::uint64_t n, const SolverParams& p, const CostFn& cost,
                std::vector<Partition>* evaluated = nullptr, const CostFn* lower_bound = nullptr,
                const CostFn* coarse_bound = nullptr);

// Standard pieces covering `rows` (largest standard <= what is left, the remainder padded to the
// smallest standard holding it): the NPU-only / hybrid cover.
std::vector<std::uint64_t> cover_pieces(std::uint64_t rows, const std::vector<std::uint64_t>& standard);
// `rows` rounded up to `align`, decomposed greedily (largest first) into standard lengths; empty
// if they do not decompose exactly.
std::vector<std::uint64_t> pipe_pieces(std::uint64_t rows, const std::vector<std::uint64_t>& standard, std::uint64_t align);

}  // namespace socsim::systems::heterollm
