#pragma once
// Helpers for the GEMM and quantization kernel tests: seeded random operands and the plain
// reference GEMMs the kernels are checked against (deliberately naive: one loop nest each).
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/tensor/tensor.h"
#include "sim/hw/npu/npu_spec.h"

namespace socsim::kernels::test {

inline Tensor random_f32(std::int64_t rows, std::int64_t cols, std::uint32_t seed, float lo = -1, float hi = 1) {
  Tensor t = Tensor::matrix(rows, cols, ElemType::kF32);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (auto& x : t.data<float>()) x = u(gen);
  return t;
}

inline Tensor random_f16(std::int64_t rows, std::int64_t cols, std::uint32_t seed, float lo = -1, float hi = 1) {
  Tensor t = Tensor::matrix(rows, cols, ElemType::kF16);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (auto& x : t.data<half>()) x = static_cast<half>(u(gen));
  return t;
}

// Uniform over the full int8 range, -128 included (the kernels must stay exact there too).
inline Tensor random_i8(std::int64_t rows, std::int64_t cols, std::uint32_t seed) {
  Tensor t = Tensor::matrix(rows, cols, ElemType::kI8);
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> u(-128, 127);
  for (auto& x : t.data<std::int8_t>()) x = static_cast<std::int8_t>(u(gen));
  return t;
}

inline Tensor filled_i8(std::int64_t rows, std::int64_t cols, std::int8_t v) {
  Tensor t = Tensor::matrix(rows, cols, ElemType::kI8);
  for (auto& x : t.data<std::int8_t>()) x = v;
  return t;
}

inline Tensor transpose_f32(const Tensor& x) {
  const std::int64_t r = x.dim(0), c = x.dim(1);
  Tensor t = Tensor::matrix(c, r, ElemType::kF32);
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < c; ++j) t.data<float>()[j * r + i] = x.data<float>()[i * c + j];
  return t;
}

inline Tensor transpose_f16(const Tensor& x) {
  const std::int64_t r = x.dim(0), c = x.dim(1);
  Tensor t = Tensor::matrix(c, r, ElemType::kF16);
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < c; ++j) t.data<half>()[j * r + i] = x.data<half>()[i * c + j];
  return t;
}

// Exact integer GEMM in 64 bits.
inline std::vector<std::int64_t> ref_gemm_i8(const Tensor& a, const Tensor& w) {
  const std::int64_t m = a.dim(0), k = a.dim(1), n = w.dim(1);
  std::vector<std::int64_t> c(static_cast<std::size_t>(m * n), 0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t kk = 0; kk < k; ++kk)
      for (std::int64_t j = 0; j < n; ++j)
        c[i * n + j] += std::int64_t{a.data<std::int8_t>()[i * k + kk]} * w.data<std::int8_t>()[kk * n + j];
  return c;
}

// FP16 operands: the HMX rule written out -- an FP32 sum over k ascending, rounded once to FP16.
inline Tensor ref_gemm_f16_hmx_rule(const Tensor& a, const Tensor& w) {
  const std::int64_t m = a.dim(0), k = a.dim(1), n = w.dim(1);
  Tensor c = Tensor::matrix(m, n, ElemType::kF16);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      float s = 0;
      for (std::int64_t kk = 0; kk < k; ++kk)
        s += static_cast<float>(a.data<half>()[i * k + kk]) * static_cast<float>(w.data<half>()[kk * n + j]);
      c.data<half>()[i * n + j] = static_cast<half>(s);
    }
  return c;
}

// Exact-ish (FP64) GEMM of FP16 or FP32 operands, plus sum_k |a||w| per output for error bounds.
struct RefF64 {
  std::vector<double> c, abs_sum;
};
template <class T>
RefF64 ref_gemm_f64(const Tensor& a, const Tensor& w) {
  const std::int64_t m = a.dim(0), k = a.dim(1), n = w.dim(1);
  RefF64 r{std::vector<double>(static_cast<std::size_t>(m * n)), std::vector<double>(static_cast<std::size_t>(m * n))};
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0, abs = 0;
      for (std::int64_t kk = 0; kk < k; ++kk) {
        const double p = static_cast<double>(a.data<T>()[i * k + kk]) * static_cast<double>(w.data<T>()[kk * n + j]);
        s += p;
        abs += std::fabs(p);
      }
      r.c[i * n + j] = s;
      r.abs_sum[i * n + j] = abs;
    }
  return r;
}

// g_k = k u / (1 - k u), u = 2^-24: the FP32 dot-product error factor.
inline double gamma_f32(std::int64_t k) {
  const double ku = static_cast<double>(k) * std::ldexp(1.0, -24);
  return ku / (1 - ku);
}

// A small NPU with round numbers for hand counts (not a SoC file, whose values calibration moves):
// 32x32 tiles, FP16 tile depth 32, INT8 64; 128-B HVX, 4 contexts, vlut16 = 2 packets, qfloat;
// TCM 1 MiB.
inline hw::NpuSpec small_npu(bool qfloat = true) {
  hw::NpuSpec n;
  n.impl = "hexagon";
  n.clock_hz = 1'000'000'000;
  n.scalar_threads = 4;
  n.tcm_bytes = 1 << 20;
  n.hmx = {1, 32, 32, 64, 5, 5, 2, 8};
  n.hvx.contexts = 4;
  n.hvx.vector_bytes = 128;
  n.hvx.packets_per_cycle = 1;
  n.hvx.vgather_latency_packets = 36;
  n.hvx.vlut16_packets = 2;
  n.hvx.qfloat = qfloat;
  n.hvx.fp16_mac_packets = 4;
  n.hvx.read_bandwidth = 1e9;
  n.port_bandwidth = 4e9;
  n.dma = {2e9, 100 * kNanosecond, 1};  // what the W4A16 chunk chooser estimates transfers with
  return n;
}

}  // namespace socsim::kernels::test
