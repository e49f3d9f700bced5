#include "sim/systems/heterollm/partition_solver.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "sim/core/host_memory.h"
#include "sim/core/run_progress.h"

namespace socsim::systems::heterollm {

namespace {
// Its three passes over a matmul's candidates, each counted on its own.
constexpr const char* kBuilding = "HeteroLLM's partition solver, building candidates:";
constexpr const char* kBounding = "HeteroLLM's partition solver, bounding candidates:";
constexpr const char* kChoosing = "HeteroLLM's partition solver, choosing among candidates:";
}  // namespace

const char* cut_kind_name(CutKind k) {
  switch (k) {
    case CutKind::kGpuOnly: return "gpu-only";
    case CutKind::kNpuOnly: return "npu-only";
    case CutKind::kRow: return "row";
    case CutKind::kHybrid: return "hybrid";
    case CutKind::kSequence: return "sequence";
    case CutKind::kMultiSequence: return "multi-sequence";
  }
  return "?";
}

std::string Partition::describe() const {
  std::string s = cut_kind_name(kind);
  if (uses_gpu()) s += fmt::format(" gpu=rows[{},{})x{}cols", gpu_row_begin, gpu_row_begin + gpu_rows, gpu_cols);
  if (uses_npu()) s += fmt::format(" npu=[{}]x{}cols", fmt::join(npu_pieces, "+"), npu_cols);
  return s;
}

std::vector<std::uint64_t> cover_pieces(std::uint64_t rows, const std::vector<std::uint64_t>& standard) {
  if (standard.empty()) throw std::invalid_argument("cover_pieces: no standard lengths");
  // Pieces of the largest length while they fit, then the remainder padded to the smallest
  // standard length holding it (npu-only's padding policy).
  std::vector<std::uint64_t> pieces;
  std::uint64_t left = rows;
  while (left >= standard.back()) {
    pieces.push_back(standard.back());
    left -= standard.back();
  }
  if (left > 0) pieces.push_back(*std::lower_bound(standard.begin(), standard.end(), left));
  return pieces;
}

namespace {

// Greedy exact decomposition of `rows` into standard lengths (largest first); empty if none.
std::vector<std::uint64_t> exact_pieces(std::uint64_t rows, const std::vector<std::uint64_t>& standard) {
  std::vector<std::uint64_t> pieces;
  std::uint64_t left = rows;
  while (left > 0) {
    std::uint64_t s = 0;
    for (auto v : standard) {
      if (v <= left) s = v;
    }
    if (s == 0) return {};
    pieces.push_back(s);
    left -= s;
  }
  return pieces;
}

}  // namespace

std::vector<std::uint64_t> pipe_pieces(std::uint64_t rows, const std::vector<std::uint64_t>& standard, std::uint64_t align) {
  if (align == 0) throw std::invalid_argument("pipe_pieces: zero alignment");
  return exact_pieces((rows + align - 1) / align * align, standard);
}

std::vector<Partition> candidates(std::uint64_t m, std::uint64_t k, std::uint64_t n, const SolverParams& p) {
  if (m == 0 || k == 0 || n == 0) throw std::invalid_argument("partition solver: empty matmul");
  if (p.standard.empty()) throw std::invalid_argument("partition solver: no standard NPU lengths");
  std::vector<Partition> out;
  Partition base;
  base.m = m, base.k = k, base.n = n;
  // The candidates hold their NPU pieces: with short standard lengths and a fine seq_align, a
  // long prompt's sequence cuts hold O(m^2) of them (32,768 tokens in pieces of 1: 4 GiB, which
  // grew past --max-host-memory unchecked). Kept memory is noted as it grows, so the host-memory
  // limit stops the solver as it stops the engine.
  // Progress as they are built (17 s for 32,773 of them in pieces of 1), of at most this many:
  const std::uint64_t most = 3 + 2 * (n / std::max<std::uint64_t>(1, p.row_align)) + (p.decode ? 0 : m / std::max<std::uint64_t>(1, p.seq_align));
  const auto keep = [&out, most](Partition&& c) {
    note_host_growth(sizeof(Partition) + c.npu_pieces.size() * sizeof(std::uint64_t));
    out.push_back(std::move(c));
    progress_plan_search(kBuilding, out.size(), std::max<std::uint64_t>(most, out.size()));
  };

  Partition gpu = base;
  gpu.kind = CutKind::kGpuOnly;
  gpu.gpu_rows = m, gpu.gpu_cols = n;
  keep(std::move(gpu));

  std::vector<std::vector<std::uint64_t>> covers;
  if (p.decode) {
    covers.push_back({m});
  } else {
    covers.push_back(cover_pieces(m, p.standard));
    auto pipe = pipe_pieces(m, p.standard, p.seq_align);
    if (!pipe.empty() && pipe != covers.front()) covers.push_back(std::move(pipe));
  }
  const auto npu_only_covers =
      p.npu_only_rows > 0 ? std::vector<std::vector<std::uint64_t>>{{p.npu_only_rows}} : covers;
  for (const auto& cover : npu_only_covers) {
    Partition npu = base;
    npu.kind = CutKind::kNpuOnly;
    npu.npu_pieces = cover, npu.npu_rows = m, npu.npu_cols = n;
    keep(std::move(npu));
  }
  if (!p.allow_split) return out;
  for (const auto& cover : covers) {
    std::uint64_t covered = 0;
    for (auto v : cover) covered += v;
    for (std::uint64_t c = p.row_align; c < n; c += p.row_align) {
      Partition r = base;
      r.kind = covered == m ? CutKind::kRow : CutKind::kHybrid;
      r.npu_pieces = cover, r.npu_rows = m, r.npu_cols = n - c;
      r.gpu_row_begin = 0, r.gpu_rows = m, r.gpu_cols = c;
      keep(std::move(r));
    }
  }
  if (p.decode) return out;
  for (std::uint64_t rows = p.seq_align; rows < m; rows += p.seq_align) {
    const auto pieces = exact_pieces(rows, p.standard);
    if (pieces.empty()) continue;
    Partition s = base;
    s.kind = pieces.size() == 1 ? CutKind::kSequence : CutKind::kMultiSequence;
    s.npu_pieces = pieces, s.npu_rows = rows, s.npu_cols = n;
    s.gpu_row_begin = rows, s.gpu_rows = m - rows, s.gpu_cols = n;
    keep(std::move(s));
  }
  return out;
}

void set_times(Partition& c, const PartTimes& t, const SolverParams& p) {
  c.t_gpu = c.uses_gpu() ? t.gpu : 0;
  c.t_npu = c.uses_npu() ? t.npu : 0;
  const bool away = p.npu_home ? c.uses_gpu() : c.uses_npu();
  if (p.npu_home && c.uses_gpu()) {
    c.t_part = std::max(c.t_gpu + p.sync, c.t_npu + p.cut_call) + p.copy;  // the cut's call overlaps the GPU part
  } else {
    c.t_part = std::max(c.t_gpu, c.t_npu) + (away ? p.sync + p.copy : 0);
  }
  c.in_step = static_cast<bool>(p.in_context);
  c.t_total = c.in_step ? p.in_context(c) : c.t_part;
}

SingleUnitTimes single_unit_times(std::vector<Partition>& all, const SolverParams& p, const CostFn& cost) {
  SingleUnitTimes out;
  for (auto& c : all) {
    if (c.kind != CutKind::kGpuOnly && c.kind != CutKind::kNpuOnly) continue;
    if (c.bounded_only) {
      c.bounded_only = false;
      set_times(c, cost(c), p);
    }
    if (c.kind == CutKind::kGpuOnly) out.gpu_only = c.t_part;
    if (c.kind == CutKind::kNpuOnly && (out.npu_only == 0 || c.t_part < out.npu_only)) out.npu_only = c.t_part;
  }
  return out;
}

Partition solve(std::uint64_t m, std::uint64_t k, std::uint64_t n, const SolverParams& p, const CostFn& cost,
                std::vector<Partition>* evaluated, const CostFn* lower_bound, const CostFn* coarse_bound) {
  auto all = candidates(m, k, n, p);
  const auto fill = [&](Partition& c, const PartTimes& t) { set_times(c, t, p); };
  // force_split: only splits, when there are any.
  const auto split = [](const Partition& c) { return c.uses_gpu() && c.uses_npu(); };
  const bool any_split = std::any_of(all.begin(), all.end(), split);
  const auto eligible = [&](const Partition& c) { return !p.force_split || !any_split || split(c); };
  // Visit order: enumeration order, or by bounded T_total (then enumeration order).
  std::vector<std::size_t> order(all.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (!lower_bound) coarse_bound = nullptr;
  if (lower_bound) {
    for (std::size_t i = 0; i < all.size(); ++i) {
      progress_plan_search(kBounding, i + 1, all.size());
      all[i].bounded_only = true;  // (before its times: in_context may tell a bound by it)
      fill(all[i], coarse_bound ? (*coarse_bound)(all[i]) : (*lower_bound)(all[i]));
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return all[a].t_total < all[b].t_total; });
  }
  std::size_t best = all.size();
  // Whether candidate i, whose T_total holds a bound, can still win: its T_total is at least the
  // bound, so it cannot beat the best unless strictly less, or equal and earlier.
  const auto may_win = [&](std::size_t i) {
    if (best == all.size()) return true;
    const Tick b = all[i].t_total, t = all[best].t_total;
    return b < t || (b == t && i < best);
  };
  std::size_t visited = 0;
  for (const std::size_t i : order) {
    progress_plan_search(kChoosing, ++visited, all.size());
    Partition& c = all[i];
    if (!eligible(c)) {
      if (lower_bound) continue;  // never chosen: its bound is all --explain shows
    } else if (lower_bound && !may_win(i)) {
      continue;  // (every later one in `order` has a bound at least as large)
    }
    if (coarse_bound && eligible(c)) {
      // Tighten the coarse bound before paying for the time.
      const Tick coarse = c.t_total;
      fill(c, (*lower_bound)(c));
      // A coarse bound above the bound is none: start again from the bounds alone.
      if (c.t_total < coarse) return solve(m, k, n, p, cost, evaluated, lower_bound);
      if (!may_win(i)) continue;
    }
    const Tick bounded = c.t_total;
    c.bounded_only = false;
    fill(c, cost(c));
    // A bound above the time is no bound: the skipped candidates are in doubt, so cost them all.
    if (lower_bound && c.t_total < bounded) return solve(m, k, n, p, cost, evaluated, nullptr);
    if (eligible(c) && (best == all.size() || c.t_total < all[best].t_total || (c.t_total == all[best].t_total && i < best)))
      best = i;
  }
  const Partition chosen = all[best];
  if (evaluated) *evaluated = std::move(all);
  return chosen;
}

}  // namespace socsim::systems::heterollm
