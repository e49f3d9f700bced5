#pragma once
// The packed, blocked engine under every functional GEMM here (FP32, FP16, HMX-tiled FP16, W4A16,
// INT8, per-group INT8). Operands are converted to float while they are packed into the panels
// the micro-kernel streams (GotoBLAS/BLIS blocking), so one fast kernel serves every element type.
// Exactness, where a kernel promises it, rests on two facts rather than on the kernel:
//   - int8 x int8 products (|p| <= 2^14) are exact in float, and a sum of up to 1024 of them has
//     magnitude <= 2^24, so every partial sum is an exactly represented integer: a depth block of
//     at most 1024 accumulates exactly (INT8 and per-group GEMMs);
//   - fp16 x fp16 products (11-bit significands) are exact in float, so fma and mul+add round
//     alike and each output's float sum depends only on its order, which is k ascending: the
//     micro-kernel walks k in order and each depth block continues from the previous block's sum.
//
// A sink receives each micro-tile (kGemmMr x kGemmNr floats, row-major; only the top-left
// mr x nr is real) around each depth block:
//   void load(i, j, mr, nr, k0, float* acc) const   acc arrives zeroed; a sink that continues a
//                                                   sum across depth blocks copies it in
//   void store(i, j, mr, nr, k0, kc, const float* acc) const
// Threads own disjoint output rectangles, so sinks see each tile from one thread only.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "kernels/gemm/gemm_dims.h"

namespace socsim::kernels {

// Fork-join over host threads: fn(0) .. fn(count-1), each index on its own thread (the caller
// runs index 0). The engine gives each index a disjoint output rectangle, so nothing but the join
// synchronizes. The first exception thrown is rethrown here. When the host refuses a thread, the
// indices left run on the caller after index 0 (a warning, once per process).
void parallel_for(std::size_t count, const std::function<void(std::size_t)>& fn);

// Threads for work split into `units` independent pieces (heads, rows, elements): one below
// `threshold` units of work in all (starting a thread costs tens of microseconds), else the GEMM
// threads, at most one per piece.
inline std::uint64_t threads_for(double work, double threshold, std::uint64_t units) {
  if (work < threshold || units <= 1) return 1;
  return std::min<std::uint64_t>(units, default_gemm_threads());
}

// fn(begin, end) over `threads` contiguous bands of [0, n), band t on parallel_for's index t.
template <class F>
void parallel_bands(std::uint64_t n, std::uint64_t threads, F&& fn) {
  parallel_for(static_cast<std::size_t>(threads), [&](std::size_t t) { fn(n * t / threads, n * (t + 1) / threads); });
}

namespace detail {
// Tests set it to make parallel_for's thread starts fail as on a host out of threads.
inline std::atomic<bool>& refuse_threads_for_tests() {
  static std::atomic<bool> refuse{false};
  return refuse;
}
}  // namespace detail

inline constexpr int kGemmMr = 6;   // micro-tile rows: 6 x 2 vector accumulators fill 12 of 16 AVX registers
inline constexpr int kGemmNr = 16;  // micro-tile columns: two 8-float vectors
inline constexpr std::int64_t kGemmMc = 120;   // rows of A per packed block (120 x 256 floats = 120 KiB, L2)
inline constexpr std::int64_t kGemmNc = 2048;  // columns of B per packed block (256 x 2048 floats = 2 MiB, L3)
inline constexpr std::int64_t kGemmKc = 256;   // default depth block (one 16 KiB B micro-panel, L1)

// Copies nr <= kGemmNr floats; the full-width case compiles to inline vector moves (a variable-size
// memcpy is a library call, which per micro-tile row would cost a noticeable share of the tile).
inline void copy_tile_row(float* dst, const float* src, int nr) {
  if (nr == kGemmNr) {
    std::memcpy(dst, src, kGemmNr * sizeof(float));
  } else {
    std::memcpy(dst, src, static_cast<std::size_t>(nr) * sizeof(float));
  }
}

// acc[r*kGemmNr + c] += sum over kk < kc, ascending, of a[kk*kGemmMr + r] * b[kk*kGemmNr + c].
void gemm_microkernel(std::int64_t kc, const float* a, const float* b, float* acc);

class LeftPacker {
 public:
  virtual ~LeftPacker() = default;
  // Rows [i0, i0+mc) x depth [k0, k0+kc) into ceil(mc / kGemmMr) panels:
  // dst[(p*kc + kk)*kGemmMr + r] = A(i0 + p*kGemmMr + r, k0 + kk); rows past mc are zero.
  virtual void pack(float* dst, std::int64_t i0, std::int64_t mc, std::int64_t k0, std::int64_t kc) const = 0;
};

class RightPacker {
 public:
  virtual ~RightPacker() = default;
  // Depth [k0, k0+kc) x columns [j0, j0+nc) into ceil(nc / kGemmNr) panels:
  // dst[(q*kc + kk)*kGemmNr + c] = W(k0 + kk, j0 + q*kGemmNr + c); columns past nc are zero.
  virtual void pack(float* dst, std::int64_t k0, std::int64_t kc, std::int64_t j0, std::int64_t nc) const = 0;
};

namespace packed_gemm_detail {

struct Rect {
  std::int64_t i0, i1, j0, j1;
};

// One rectangle per thread: column strips when n >= m (each thread packs only its own weights),
// row strips otherwise; edges fall on micro-tile boundaries.
std::vector<Rect> split_output(const GemmDims& d, unsigned threads);

// A float buffer whose data() is 64-byte aligned (packed panels are streamed with vector loads).
class PanelBuffer {
 public:
  explicit PanelBuffer(std::size_t n);
  float* data() { return data_; }

 private:
  std::vector<float> raw_;
  float* data_ = nullptr;
};

template <class Sink>
void run_rect(const GemmDims& d, const LeftPacker& a, const RightPacker& b, const Sink& sink, std::int64_t kc,
              const Rect& r) {
  const std::int64_t nc_max = std::min(kGemmNc, r.j1 - r.j0), mc_max = std::min(kGemmMc, r.i1 - r.i0);
  PanelBuffer bbuf(static_cast<std::size_t>((nc_max + kGemmNr - 1) / kGemmNr * kGemmNr * kc));
  PanelBuffer abuf(static_cast<std::size_t>((mc_max + kGemmMr - 1) / kGemmMr * kGemmMr * kc));
  alignas(64) float acc[kGemmMr * kGemmNr];
  for (std::int64_t jc = r.j0; jc < r.j1; jc += kGemmNc) {
    const std::int64_t nc = std::min(kGemmNc, r.j1 - jc);
    for (std::int64_t pc = 0; pc < d.k; pc += kc) {
      const std::int64_t kcur = std::min(kc, d.k - pc);
      b.pack(bbuf.data(), pc, kcur, jc, nc);
      for (std::int64_t ic = r.i0; ic < r.i1; ic += kGemmMc) {
        const std::int64_t mc = std::min(kGemmMc, r.i1 - ic);
        a.pack(abuf.data(), ic, mc, pc, kcur);
        for (std::int64_t jr = 0; jr < nc; jr += kGemmNr) {
          const int nr = static_cast<int>(std::min<std::int64_t>(kGemmNr, nc - jr));
          const float* bp = bbuf.data() + jr * kcur;
          for (std::int64_t ir = 0; ir < mc; ir += kGemmMr) {
            const int mr = static_cast<int>(std::min<std::int64_t>(kGemmMr, mc - ir));
            std::fill(acc, acc + kGemmMr * kGemmNr, 0.0f);
            sink.load(ic + ir, jc + jr, mr, nr, pc, acc);
            gemm_microkernel(kcur, abuf.data() + ir * kcur, bp, acc);
            sink.store(ic + ir, jc + jr, mr, nr, pc, kcur, acc);
          }
        }
      }
    }
  }
}

}  // namespace packed_gemm_detail

// C = A * W through `sink`, depth blocks of `kc` (the last may be shorter), on up to `threads`
// host threads. Empty shapes do nothing.
template <class Sink>
void run_packed_gemm(const GemmDims& d, const LeftPacker& a, const RightPacker& b, const Sink& sink, std::int64_t kc,
                     unsigned threads) {
  if (d.m <= 0 || d.n <= 0 || d.k <= 0) return;
  const auto rects = packed_gemm_detail::split_output(d, threads);
  parallel_for(rects.size(), [&](std::size_t t) { packed_gemm_detail::run_rect(d, a, b, sink, kc, rects[t]); });
}

}  // namespace socsim::kernels
