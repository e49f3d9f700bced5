#pragma once
// Per-row sums of a kept-fraction top-k in closed form, for ratios that are a whole number of
// parts per million (shadowAttn's ops carry their ratios so: OpDesc::weight_params / 1e6).
//
// The row loop (topk.h's k_for_capped_ratio per row) costs a multiply, a ceil and a bit scan per
// query row, and shadowAttn lowers one top-k per head and chunk: about a tenth of a whole run's
// instructions. For a ratio c = P / 1e6 (P an integer, 0 <= P <= 1e6, c the double nearest it),
//   k_for_capped_ratio(c, v) == ceil(P v / 1e6)   for every v <= kMaxExactVisible.
// Why: the double product c v carries a relative error of at most about 3.4e-16 (c's rounding,
// the product's, the subtraction's), so below 2^21 keys less than 1e-9 in absolute terms. When
// P v / 1e6 is an integer K, the loop's ceil(c v - 1e-9) therefore sees K - 1e-9 +- that error,
// inside (K - 1, K): K. Otherwise the fractional part of P v / 1e6 is a multiple of 1e-6, at
// least 1e-6 from either integer, far more than the slack and the error together: the same
// ceiling. (tests/unit/kernels/topk/ratio_row_sums_test.cpp checks it against the loop.)
// With k(v) = ceil(P v / 1e6) the sums are floor sums (O(log) each) and, per range of v over
// which ceil(log2 k) is constant (at most 22), arithmetic series.
#include <cstdint>
#include <optional>

namespace socsim::kernels {

inline constexpr std::uint64_t kPartsPerMillion = 1000000;
inline constexpr std::uint64_t kMaxExactVisible = std::uint64_t{1} << 21;

// P when `ratio` is exactly the double nearest P / 1e6 for an integer 0 <= P <= 1e6 (a ratio at or
// above 1 is capped to 1e6 as k_for_ratio caps it); else nothing (the caller loops over rows).
std::optional<std::uint64_t> ratio_as_ppm(double ratio);

// Over visible-key counts v in [v_first, v_last] (v_first >= 1, v_last <= kMaxExactVisible):
//   kept = sum of k(v),
//   ops  = sum of v * max(1, ceil(log2 k(v))) over the v with k(v) > 0 (topk_row_ops),
// with k(v) = ceil(ppm v / 1e6). v_first > v_last is an empty range (zero sums).
struct RatioRowSums {
  std::uint64_t kept = 0;
  std::uint64_t ops = 0;
};
RatioRowSums ratio_row_sums(std::uint64_t ppm, std::uint64_t v_first, std::uint64_t v_last);

// sum_{i=0}^{n-1} floor((a i + b) / m), m > 0 (the classic Euclid-like reduction, O(log m)).
// The caller keeps a n^2 / 2 + b n / m and the intermediate a n + b below 2^64.
std::uint64_t floor_sum(std::uint64_t n, std::uint64_t m, std::uint64_t a, std::uint64_t b);

}  // namespace socsim::kernels
