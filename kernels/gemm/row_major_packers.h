#pragma once
// Packers (packed_gemm.h) for row-major operands of float, half or int8 elements: each row segment
// is widened to float in bulk (bulk_convert.h), then laid out as the micro-kernel's panels.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/gemm/bulk_convert.h"
#include "kernels/gemm/packed_gemm.h"

namespace socsim::kernels {

inline void widen(const float* src, float* dst, std::size_t n) { std::memcpy(dst, src, n * sizeof(float)); }

// Lays out up to kGemmMr float rows (row r at rows + r*kc) as one A panel, zero-filling missing rows.
inline void interleave_left_panel(const float* rows, int valid_rows, std::int64_t kc, float* panel) {
  for (std::int64_t kk = 0; kk < kc; ++kk) {
    float* out = panel + kk * kGemmMr;
    for (int r = 0; r < kGemmMr; ++r) out[r] = r < valid_rows ? rows[r * kc + kk] : 0.0f;
  }
}

// Copies `count` float rows (row r at rows + r*ld, ld a multiple of kGemmNr, zero past the real
// columns) that start at depth index kk into the B panels of a depth block of kc: panel-major, so
// each panel receives count x kGemmNr contiguous floats.
inline void scatter_right_rows(const float* rows, std::int64_t ld, int count, std::int64_t kk, std::int64_t kc,
                               float* dst) {
  for (std::int64_t c0 = 0; c0 < ld; c0 += kGemmNr) {
    float* out = dst + ((c0 / kGemmNr) * kc + kk) * kGemmNr;
    for (int r = 0; r < count; ++r) std::memcpy(out + r * kGemmNr, rows + r * ld + c0, kGemmNr * sizeof(float));
  }
}

// Rows of B are widened kRightChunkRows at a time into an L2-sized float buffer and then copied
// into the panels, so both the widening and the panel writes run over contiguous memory.
inline constexpr int kRightChunkRows = 16;

// A[m x k], row-major with leading dimension ld (elements).
template <class T>
class RowMajorLeft final : public LeftPacker {
 public:
  RowMajorLeft(const T* data, std::int64_t ld) : data_(data), ld_(ld) {}
  void pack(float* dst, std::int64_t i0, std::int64_t mc, std::int64_t k0, std::int64_t kc) const override {
    std::vector<float> rows(static_cast<std::size_t>(kGemmMr * kc));
    for (std::int64_t p = 0; p * kGemmMr < mc; ++p) {
      const int valid = static_cast<int>(std::min<std::int64_t>(kGemmMr, mc - p * kGemmMr));
      for (int r = 0; r < valid; ++r) {
        widen(data_ + (i0 + p * kGemmMr + r) * ld_ + k0, rows.data() + r * kc, static_cast<std::size_t>(kc));
      }
      interleave_left_panel(rows.data(), valid, kc, dst + p * kc * kGemmMr);
    }
  }

 private:
  const T* data_;
  std::int64_t ld_;
};

// W[k x n], row-major with leading dimension ld (elements).
template <class T>
class RowMajorRight final : public RightPacker {
 public:
  RowMajorRight(const T* data, std::int64_t ld) : data_(data), ld_(ld) {}
  void pack(float* dst, std::int64_t k0, std::int64_t kc, std::int64_t j0, std::int64_t nc) const override {
    const std::int64_t ld = (nc + kGemmNr - 1) / kGemmNr * kGemmNr;
    std::vector<float> rows(static_cast<std::size_t>(kRightChunkRows * ld), 0.0f);
    for (std::int64_t kb = 0; kb < kc; kb += kRightChunkRows) {
      const int count = static_cast<int>(std::min<std::int64_t>(kRightChunkRows, kc - kb));
      for (int r = 0; r < count; ++r) {
        widen(data_ + (k0 + kb + r) * ld_ + j0, rows.data() + r * ld, static_cast<std::size_t>(nc));
      }
      scatter_right_rows(rows.data(), ld, count, kb, kc, dst);
    }
  }

 private:
  const T* data_;
  std::int64_t ld_;
};

}  // namespace socsim::kernels
