#pragma once
// The FP16-output sink of packed_gemm.h, shared by the FP16, HMX-tiled and W4A16 GEMMs: each output
// accumulates in FP32 over the whole of k (k ascending; partial sums between depth blocks are kept
// in an FP32 scratch matrix) and is rounded to FP16 exactly once, when its last depth block ends.
// This is where rounding happens, and the only place. `Writer` places the rounded values:
//   void write(std::int64_t i, std::int64_t j, const half* values, int count) const  // C(i, j..j+count)
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/gemm/bulk_convert.h"
#include "kernels/gemm/packed_gemm.h"

namespace socsim::kernels {

template <class Writer>
class HalfOutputSink {
 public:
  // `scratch` must hold m*n floats when k > kc (more than one depth block), else may be empty.
  HalfOutputSink(const GemmDims& d, std::int64_t kc, float* scratch, Writer writer)
      : d_(d), kc_(kc), scratch_(scratch), writer_(writer) {}

  static std::size_t scratch_size(const GemmDims& d, std::int64_t kc) {
    return d.k > kc ? static_cast<std::size_t>(d.m * d.n) : 0;
  }

  void load(std::int64_t i, std::int64_t j, int mr, int nr, std::int64_t k0, float* acc) const {
    if (k0 == 0) return;
    for (int r = 0; r < mr; ++r) {
      copy_tile_row(acc + r * kGemmNr, scratch_ + (i + r) * d_.n + j, nr);
    }
  }

  void store(std::int64_t i, std::int64_t j, int mr, int nr, std::int64_t k0, std::int64_t kc, const float* acc) const {
    if (k0 + kc < d_.k) {
      for (int r = 0; r < mr; ++r) {
        copy_tile_row(scratch_ + (i + r) * d_.n + j, acc + r * kGemmNr, nr);
      }
      return;
    }
    half rounded[kGemmNr];
    for (int r = 0; r < mr; ++r) {
      narrow(acc + r * kGemmNr, rounded, static_cast<std::size_t>(nr));
      writer_.write(i + r, j, rounded, nr);
    }
  }

 private:
  GemmDims d_;
  std::int64_t kc_;
  float* scratch_;
  Writer writer_;
};

// Writes into a row-major FP16 matrix with leading dimension ld.
struct RowMajorHalfWriter {
  half* data;
  std::int64_t ld;
  void write(std::int64_t i, std::int64_t j, const half* values, int count) const {
    std::memcpy(data + i * ld + j, values, static_cast<std::size_t>(count) * sizeof(half));
  }
};

}  // namespace socsim::kernels
