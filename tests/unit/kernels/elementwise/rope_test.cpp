// RoPE `compute` against a double reference (Llama full rotary, phi-2 partial rotary) and
// `lower` against hand counts.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernels/elementwise/rope.h"
#include "tests/unit/kernels/elementwise/kernel_test_specs.h"

namespace socsim::kernels {
namespace {

Tensor random_heads(std::int64_t tokens, std::int64_t heads, std::int64_t d, unsigned seed) {
  Tensor x({tokens, heads, d}, ElemType::kF32);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-2, 2);
  for (float& v : x.data<float>()) v = u(rng);
  return x;
}

// Straight from the Hugging Face formula: inv_freq = 1 / theta^(2i/r), rotate_half on [0, r).
void check_against_reference(std::int64_t tokens, std::int64_t heads, std::int64_t d, double frac, double theta, std::uint64_t p0) {
  const Tensor x0 = random_heads(tokens, heads, d, static_cast<unsigned>(d + p0));
  Tensor x = x0;
  apply_rope(x, {theta, frac}, p0);
  const std::int64_t r = static_cast<std::int64_t>(rotary_dims(static_cast<std::uint64_t>(d), frac)), h = r / 2;
  for (std::int64_t t = 0; t < tokens; ++t) {
    for (std::int64_t hd = 0; hd < heads; ++hd) {
      const float* a = x0.data<float>().data() + (t * heads + hd) * d;
      const float* b = x.data<float>().data() + (t * heads + hd) * d;
      for (std::int64_t i = 0; i < d; ++i) {
        double want = a[i];
        if (i < r) {
          const std::int64_t fi = i % h;
          const double ang = static_cast<double>(p0 + t) / std::pow(theta, 2.0 * fi / r);
          want = i < h ? a[i] * std::cos(ang) - a[i + h] * std::sin(ang) : a[i] * std::cos(ang) + a[i - h] * std::sin(ang);
        }
        ASSERT_NEAR(b[i], want, 2e-6) << "t" << t << " h" << hd << " i" << i;
        if (i >= r) {
          ASSERT_EQ(b[i], a[i]);  // pass-through dims untouched
        }
      }
    }
  }
}

TEST(Rope, LlamaFullRotary) { check_against_reference(3, 2, 128, 1.0, 500000.0, 4093); }
TEST(Rope, Phi2PartialRotary) { check_against_reference(5, 3, 80, 0.4, 10000.0, 17); }
TEST(Rope, OddShapes) { check_against_reference(1, 7, 64, 0.5, 10000.0, 0); }

TEST(Rope, RotaryDimsAndIdentityAtZero) {
  EXPECT_EQ(rotary_dims(80, 0.4), 32u);
  EXPECT_EQ(rotary_dims(128, 1.0), 128u);
  EXPECT_EQ(rotary_dims(10, 0.35), 2u);  // 3.5 -> 3 -> even 2
  EXPECT_THROW(rotary_dims(64, 1.5), std::invalid_argument);
  const Tensor x0 = random_heads(1, 2, 16, 3);
  Tensor x = x0;
  apply_rope(x, {}, 0);  // position 0: cos 1, sin 0
  for (std::size_t i = 0; i < x.numel(); ++i) EXPECT_EQ(x.data<float>()[i], x0.data<float>()[i]);
}

TEST(RopeLower, HandCounts) {
  const RopeParams llama{10000.0, 1.0}, phi{10000.0, 0.4};
  // Llama: 4 tokens x 8 heads x 128, r = 128 -> 4096 rotated values, 3 ops each = 12288 ops;
  // bytes FP32: 4096 * 4 * 2 + cache 4 tokens * 128 * 4 = 32768 + 2048 = 34816.
  auto c = lower_rope_cpu({4, 8, 128}, llama, 2);
  EXPECT_DOUBLE_EQ(c.tasks.at(0).ops, 12288);
  EXPECT_EQ(c.tasks[0].dram_bytes, 34816u);
  // phi-2: 3 tokens x 32 heads x 80, r = 32 -> 3072 values: 9216 ops; 3072*8 + 3*32*4 = 24960 B.
  c = lower_rope_cpu({3, 32, 80}, phi, 1);
  EXPECT_DOUBLE_EQ(c.tasks[0].ops, 9216);
  EXPECT_EQ(c.tasks[0].dram_bytes, 24960u);
  // GPU FP16, Llama shape: 4096*2*2 + 4*128*2 = 17408 B, same 12288 flops.
  auto g = lower_rope_gpu({4, 8, 128}, llama, hw::DType::kFp16);
  EXPECT_DOUBLE_EQ(g.kernels.at(0).flops, 12288);
  EXPECT_EQ(g.kernels[0].dram_bytes, 17408u);
  // GPU FP32, phi-2 shape: 24960 B as on the CPU.
  EXPECT_EQ(lower_rope_gpu({3, 32, 80}, phi, hw::DType::kFp32).kernels[0].dram_bytes, 24960u);
  // NPU v75: Llama h = 64 pairs = 1 vector pair, 6 fop = 12 packets per (token, head): 32*12 = 384.
  auto n = lower_rope_npu(test::v75(), {4, 8, 128}, llama, 4);
  EXPECT_DOUBLE_EQ(n.steps.at(0).packets, 384);
  EXPECT_EQ(n.steps[0].threads, 4u);
  // NPU v79: phi-2 h = 16 -> still 1 vector pair, 6 packets; 96 (token, head) -> 576.
  EXPECT_DOUBLE_EQ(lower_rope_npu(test::v79(), {3, 32, 80}, phi, 4).steps.at(0).packets, 576);
}

}  // namespace
}  // namespace socsim::kernels
