// Host throughput of the functional GEMM kernels against OpenBLAS cblas_sgemm on the same shapes,
// in one run (issue 4: INT8 and FP16 paths should reach >= 50% of BLAS). Rates are 2 m k n per
// second of wall time; the kernels use every host thread, OpenBLAS its own default (normally the
// same). Operands are prepared outside the timed loop: weights are static in
// inference (tiled or quantized offline), and the tiled FP16 case also gets its activations
// already in tile layout, as the NPU kernel does.
//   socsim_benchmarks --benchmark_filter=Gemm
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>

#include "kernels/gemm/gemm_f16_hmx.h"
#include "kernels/gemm/gemm_float.h"
#include "kernels/gemm/gemm_group.h"
#include "kernels/gemm/gemm_int8.h"
#include "kernels/gemm/gemm_w4a16.h"
#include "kernels/gemm/w4a16_fused.h"
#include "kernels/quant/block_quant.h"
#include "kernels/quant/group_quant.h"
#include "sim/functional/tensor_util.h"

namespace socsim::kernels {
namespace {

// Deterministic pseudo-random fill without <random> state per element cost.
std::uint32_t next(std::uint32_t& s) { return s = s * 1664525u + 1013904223u; }

Tensor f32(std::int64_t r, std::int64_t c, std::uint32_t seed) {
  Tensor t = Tensor::matrix(r, c, ElemType::kF32);
  for (auto& x : t.data<float>()) x = static_cast<float>(next(seed) >> 8) / 16777216.0f - 0.5f;
  return t;
}
Tensor f16(std::int64_t r, std::int64_t c, std::uint32_t seed) {
  Tensor t = Tensor::matrix(r, c, ElemType::kF16);
  for (auto& x : t.data<half>()) x = static_cast<half>(static_cast<float>(next(seed) >> 8) / 16777216.0f - 0.5f);
  return t;
}
Tensor i8(std::int64_t r, std::int64_t c, std::uint32_t seed) {
  Tensor t = Tensor::matrix(r, c, ElemType::kI8);
  for (auto& x : t.data<std::int8_t>()) x = static_cast<std::int8_t>(next(seed) >> 24);
  return t;
}

// Times `kernel`, then cblas_sgemm on FP32 operands of the same shape right after it, so that
// both see the same machine (other processes' load drifts over a run); counters give both rates
// and vs_BLAS = kernel FLOPS / BLAS FLOPS. The two never overlap or alternate: OpenBLAS's worker
// threads keep spinning for tens of milliseconds after each call (they halved the kernels' speed
// when calls alternated), so BLAS runs after the timed loop and the benchmark then waits for its
// workers to go to sleep before the next one starts.
template <class Kernel>
void run_vs_blas(benchmark::State& state, Kernel kernel) {
  using Clock = std::chrono::steady_clock;
  const auto m = state.range(0), k = state.range(1), n = state.range(2);
  double kernel_s = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    kernel();
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    kernel_s += dt;
    state.SetIterationTime(dt);
  }
  const Tensor a = f32(m, k, 3), w = f32(k, n, 4);
  Tensor c = Tensor::matrix(m, n, ElemType::kF32);
  auto sgemm = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0f,
                a.data<float>().data(), static_cast<int>(k), w.data<float>().data(), static_cast<int>(n), 0.0f,
                c.data<float>().data(), static_cast<int>(n));
    benchmark::DoNotOptimize(c.raw().data());
  };
  sgemm();  // wakes the BLAS workers
  const auto reps = std::clamp<std::int64_t>(state.iterations(), 3, 50);
  const auto t0 = Clock::now();
  for (std::int64_t i = 0; i < reps; ++i) sgemm();
  const double blas_s = std::chrono::duration<double>(Clock::now() - t0).count();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double flops = 2.0 * static_cast<double>(m * k * n);
  state.counters["GFLOPS"] = flops * static_cast<double>(state.iterations()) / kernel_s / 1e9;
  state.counters["BLAS_GFLOPS"] = flops * static_cast<double>(reps) / blas_s / 1e9;
  state.counters["vs_BLAS"] = state.counters["GFLOPS"] / state.counters["BLAS_GFLOPS"];
}

void BM_GemmF32(benchmark::State& state) {
  const Tensor a = f32(state.range(0), state.range(1), 1), w = f32(state.range(1), state.range(2), 2);
  run_vs_blas(state, [&] { benchmark::DoNotOptimize(gemm_f32(a, w)); });
}

void BM_GemmInt8(benchmark::State& state) {
  const Tensor a = i8(state.range(0), state.range(1), 1), w = i8(state.range(1), state.range(2), 2);
  run_vs_blas(state, [&] { benchmark::DoNotOptimize(gemm_i8(a, w)); });
}

void BM_GemmF16HmxTiled(benchmark::State& state) {
  const HmxTiled a = to_hmx_tiles(f16(state.range(0), state.range(1), 1));
  const HmxTiled w = to_hmx_tiles(f16(state.range(1), state.range(2), 2), TileOrder::kColumnMajor);
  run_vs_blas(state, [&] { benchmark::DoNotOptimize(gemm_f16_hmx(a, w)); });
}

void BM_GemmF16RowMajor(benchmark::State& state) {
  const Tensor a = f16(state.range(0), state.range(1), 1), w = f16(state.range(1), state.range(2), 2);
  run_vs_blas(state, [&] { benchmark::DoNotOptimize(gemm_f16(a, w)); });
}

void BM_GemmW4A16Q4(benchmark::State& state) {
  const Tensor a = f16(state.range(0), state.range(1), 1);
  const BlockQuantized w = quantize_blocks(f32(state.range(2), state.range(1), 2), BlockFormat::kQ4_0);
  run_vs_blas(state, [&] { benchmark::DoNotOptimize(gemm_w4a16(a, w)); });
}

// Decode shapes (a few rows of activations), each path on its own: where the fused path stops
// paying is where kW4A16FusedMaxRows belongs (w4a16_fused.h).
//   socsim_benchmarks --benchmark_filter=W4A16Q4Decode
void w4a16_decode(benchmark::State& state, bool fused) {
  if (fused && !w4a16_fused_available()) {
    state.SkipWithError("this host has no AVX2/FMA/F16C: the fused path does not run here");
    return;
  }
  const Tensor a = f16(state.range(0), state.range(1), 1);
  const BlockQuantized w = quantize_blocks(f32(state.range(2), state.range(1), 2), BlockFormat::kQ4_0);
  for (auto _ : state) benchmark::DoNotOptimize(fused ? gemm_w4a16_fused(a, w) : gemm_w4a16_packed(a, w));
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * static_cast<double>(state.range(0) * state.range(1) * state.range(2)),
                                                benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}
void BM_GemmW4A16Q4DecodeFused(benchmark::State& state) { w4a16_decode(state, true); }
void BM_GemmW4A16Q4DecodePacked(benchmark::State& state) { w4a16_decode(state, false); }

void decode_shapes(benchmark::internal::Benchmark* b) {
  for (const std::int64_t n : {4096, 11008}) {
    for (const std::int64_t m : {1, 4, 8, 12, 16, 24, 32}) b->Args({m, 4096, n});
  }
  b->ArgNames({"m", "k", "n"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

// A weight stored outputs by inputs (the lm_head, as checkpoints store it): read in place
// (gemm_f32_out_in) against transposed first (functional mode's blocked, threaded transpose)
// and then multiplied, the transpose timed too.
//   socsim_benchmarks --benchmark_filter=F32OutIn
void BM_GemmF32OutIn(benchmark::State& state) {
  const Tensor a = f32(state.range(0), state.range(1), 1), wt = f32(state.range(2), state.range(1), 2);
  for (auto _ : state) benchmark::DoNotOptimize(gemm_f32_out_in(a, wt));
}
void BM_GemmF32TransposeFirst(benchmark::State& state) {
  const Tensor a = f32(state.range(0), state.range(1), 1), wt = f32(state.range(2), state.range(1), 2);
  for (auto _ : state) benchmark::DoNotOptimize(gemm_f32(a, functional::transpose(wt)));
}
void head_shapes(benchmark::internal::Benchmark* b) {
  b->Args({8, 896, 4096})->Args({264, 896, 4096})->ArgNames({"m", "k", "n"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

void BM_GemmInt8PerGroup128(benchmark::State& state) {
  const Tensor a = i8(state.range(0), state.range(1), 1);
  const GroupQuantizedI8 w = quantize_per_group(f32(state.range(1), state.range(2), 2), 128);
  run_vs_blas(state, [&] { benchmark::DoNotOptimize(gemm_i8_per_group(a, 0.01f, w)); });
}

void shapes(benchmark::internal::Benchmark* b) {
  b->Args({64, 2048, 2048})->Args({256, 2048, 2048})->Args({1, 2048, 8192});
  b->ArgNames({"m", "k", "n"})->Unit(benchmark::kMillisecond)->UseManualTime();
}

// OpenBLAS against itself: the noise floor of vs_BLAS (should read ~1).
void BM_GemmOpenBlasSgemm(benchmark::State& state) {
  const auto m = state.range(0), k = state.range(1), n = state.range(2);
  const Tensor a = f32(m, k, 1), w = f32(k, n, 2);
  Tensor c = Tensor::matrix(m, n, ElemType::kF32);
  run_vs_blas(state, [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0f,
                a.data<float>().data(), static_cast<int>(k), w.data<float>().data(), static_cast<int>(n), 0.0f,
                c.data<float>().data(), static_cast<int>(n));
    benchmark::DoNotOptimize(c.raw().data());
  });
}

BENCHMARK(BM_GemmOpenBlasSgemm)->Apply(shapes);
BENCHMARK(BM_GemmF32)->Apply(shapes);
BENCHMARK(BM_GemmInt8)->Apply(shapes);
BENCHMARK(BM_GemmF16HmxTiled)->Apply(shapes);
BENCHMARK(BM_GemmF16RowMajor)->Apply(shapes);
BENCHMARK(BM_GemmW4A16Q4)->Apply(shapes);
BENCHMARK(BM_GemmInt8PerGroup128)->Apply(shapes);
BENCHMARK(BM_GemmW4A16Q4DecodeFused)->Apply(decode_shapes);
BENCHMARK(BM_GemmF32OutIn)->Apply(head_shapes);
BENCHMARK(BM_GemmF32TransposeFirst)->Apply(head_shapes);
BENCHMARK(BM_GemmW4A16Q4DecodePacked)->Apply(decode_shapes);

}  // namespace
}  // namespace socsim::kernels
