// Activations, residual add and gating multiply: `compute` against double references, `lower`
// against hand counts.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernels/elementwise/activation.h"
#include "kernels/elementwise/elementwise_lower.h"
#include "tests/unit/kernels/elementwise/kernel_test_specs.h"

namespace socsim::kernels {
namespace {

Tensor sweep(std::int64_t rows, std::int64_t cols) {
  Tensor x = Tensor::matrix(rows, cols, ElemType::kF32);
  const auto n = static_cast<float>(x.numel());
  for (std::size_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = -12.0f + 24.0f * static_cast<float>(i) / n;
  return x;
}

template <class F, class R>
void expect_close(const Tensor& x, F f, R ref, double tol) {
  const Tensor y = f(x);
  ASSERT_EQ(y.shape(), x.shape());
  for (std::size_t i = 0; i < x.numel(); ++i) {
    const double v = x.data<float>()[i];
    ASSERT_NEAR(y.data<float>()[i], ref(v), tol * (1 + std::fabs(ref(v)))) << "x=" << v;
  }
}

TEST(Activation, Silu) {
  expect_close(sweep(3, 101), silu, [](double v) { return v / (1 + std::exp(-v)); }, 1e-6);
  Tensor big = Tensor::matrix(1, 2, ElemType::kF32);
  big.data<float>()[0] = -200, big.data<float>()[1] = 200;
  const Tensor y = silu(big);
  EXPECT_EQ(y.data<float>()[0], 0.0f);
  EXPECT_EQ(y.data<float>()[1], 200.0f);
}

TEST(Activation, GeluExactAndTanh) {
  expect_close(sweep(2, 640), gelu_erf, [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }, 1e-6);
  const double k = std::sqrt(2 / 3.14159265358979323846);
  expect_close(sweep(1, 64), gelu_tanh, [k](double v) { return 0.5 * v * (1 + std::tanh(k * (v + 0.044715 * v * v * v))); }, 1e-6);
  // The two GELUs differ by under 1e-3 over the range (the approximation's known error).
  const Tensor a = gelu_erf(sweep(1, 999)), b = gelu_tanh(sweep(1, 999));
  for (std::size_t i = 0; i < a.numel(); ++i) EXPECT_NEAR(a.data<float>()[i], b.data<float>()[i], 1e-3);
}

TEST(Activation, ResidualAddAndGateMul) {
  const Tensor a = sweep(4, 33), b = silu(sweep(4, 33));
  const Tensor s = residual_add(a, b), p = gate_mul(a, b);
  for (std::size_t i = 0; i < a.numel(); ++i) {
    EXPECT_EQ(s.data<float>()[i], a.data<float>()[i] + b.data<float>()[i]);
    EXPECT_EQ(p.data<float>()[i], a.data<float>()[i] * b.data<float>()[i]);
  }
  EXPECT_THROW(residual_add(a, sweep(33, 4)), std::invalid_argument);
}

TEST(ActivationLower, CpuAndGpuHandCounts) {
  // CPU FP32 (exp 16 ops): SiLU 3 + 16 = 19/element; 3 x 100 = 5700 ops, 300*2*4 = 2400 B.
  auto c = lower_elementwise_cpu(ElementwiseOp::kSilu, {3, 100}, 1);
  EXPECT_DOUBLE_EQ(c.tasks.at(0).ops, 5700);
  EXPECT_EQ(c.tasks[0].dram_bytes, 2400u);
  // GELU erf 4 + 17 + 16 = 37/element; 2 x 640 -> 47360. GELU tanh 8 + 4 + 16 = 28; 1 x 64 -> 1792.
  EXPECT_DOUBLE_EQ(lower_elementwise_cpu(ElementwiseOp::kGeluErf, {2, 640}, 1).tasks.at(0).ops, 47360);
  EXPECT_DOUBLE_EQ(lower_elementwise_cpu(ElementwiseOp::kGeluTanh, {1, 64}, 1).tasks.at(0).ops, 1792);
  // Residual add 2 x 1000: 2000 ops, 2 inputs + output: 2000*3*4 = 24000 B.
  c = lower_elementwise_cpu(ElementwiseOp::kResidualAdd, {2, 1000}, 2);
  EXPECT_DOUBLE_EQ(c.tasks.at(0).ops, 2000);
  EXPECT_EQ(c.tasks[0].dram_bytes, 24000u);
  // GPU (SFU exp = 4): SiLU 7/element -> 2100 flops FP32; GELU tanh 16 -> 1024 flops, FP16 bytes
  // 64*2*2 = 256; GELU erf 25 -> 32000; gate mul FP16 4 x 4096: 16384 flops, 16384*3*2 = 98304 B.
  EXPECT_DOUBLE_EQ(lower_elementwise_gpu(ElementwiseOp::kSilu, {3, 100}, hw::DType::kFp32).kernels.at(0).flops, 2100);
  auto g = lower_elementwise_gpu(ElementwiseOp::kGeluTanh, {1, 64}, hw::DType::kFp16);
  EXPECT_DOUBLE_EQ(g.kernels.at(0).flops, 1024);
  EXPECT_EQ(g.kernels[0].dram_bytes, 256u);
  EXPECT_DOUBLE_EQ(lower_elementwise_gpu(ElementwiseOp::kGeluErf, {2, 640}, hw::DType::kFp32).kernels.at(0).flops, 32000);
  g = lower_elementwise_gpu(ElementwiseOp::kGateMul, {4, 4096}, hw::DType::kFp16);
  EXPECT_DOUBLE_EQ(g.kernels.at(0).flops, 16384);
  EXPECT_EQ(g.kernels[0].dram_bytes, 98304u);
}

TEST(ActivationLower, NpuHandCounts) {
  const auto v75 = test::v75(), v79 = test::v79();
  // SiLU v75: 5 + 9*2 + poly exp 16 (softmax_lower_test) = 39 per vector; 300 values = 5 vectors -> 195, 4 threads.
  auto n = lower_elementwise_npu(v75, ElementwiseOp::kSilu, {3, 100}, 4);
  EXPECT_DOUBLE_EQ(n.steps.at(0).packets, 195);
  EXPECT_EQ(n.steps[0].threads, 4u);
  // GELU tanh v79: 3 + 18 + 8 = 29 per vector; 1 vector.
  n = lower_elementwise_npu(v79, ElementwiseOp::kGeluTanh, {1, 64}, 4);
  EXPECT_DOUBLE_EQ(n.steps.at(0).packets, 29);
  EXPECT_EQ(n.steps[0].threads, 1u);
  // GELU erf v75: 4 + 48 + 16 = 68 per vector; 1280 values = 20 vectors -> 1360.
  EXPECT_DOUBLE_EQ(lower_elementwise_npu(v75, ElementwiseOp::kGeluErf, {2, 640}, 4).steps.at(0).packets, 1360);
  // Residual add v79: 1 per vector, 2000 values -> 32 vectors. Gate mul v75: 2 per vector x 256.
  EXPECT_DOUBLE_EQ(lower_elementwise_npu(v79, ElementwiseOp::kResidualAdd, {2, 1000}, 4).steps.at(0).packets, 32);
  EXPECT_DOUBLE_EQ(lower_elementwise_npu(v75, ElementwiseOp::kGateMul, {4, 4096}, 4).steps.at(0).packets, 512);
}

}  // namespace
}  // namespace socsim::kernels
