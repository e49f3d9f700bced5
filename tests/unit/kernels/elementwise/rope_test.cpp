// RoPE `compute` against a double reference (Llama full rotary, phi-2 partial rotary) and
// `lower` against hand counts.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernels/elementwise/rope.h"
#include "sim/config/config_error.h"
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
  apply_rope(x, {theta, frac, {}}, p0);
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

// Llama 3.2's rope_scaling (llama3: factor 32, low 1, high 4, original context 8192) at theta
// 500000 over 64 rotary dims: with wavelength w = 2 pi / f, w < 2048 keeps f (i <= 14), w > 8192
// divides it by 32 (i >= 18), and between them f is blended. Hand values: i = 16 has
// f = 500000^-0.5 = 1.41421e-3, w = 4442.883, s = (8192 / w - 1) / 3 = 0.281283, so
// f' = f (0.718717 / 32 + 0.281283) = 0.303743 f.
TEST(Rope, Llama3ScalingOfTheFrequencies) {
  model::RopeScaling s;
  s.kind = model::RopeScaling::Kind::kLlama3;
  s.factor = 32, s.low_freq_factor = 1, s.high_freq_factor = 4, s.original_max_positions = 8192;
  const auto plain = model::rope_inverse_frequencies(500000.0, 64, {});
  const auto scaled = model::rope_inverse_frequencies(500000.0, 64, s);
  ASSERT_EQ(scaled.size(), 32u);
  EXPECT_NEAR(plain[16], 1.41421e-3, 1e-8);
  EXPECT_NEAR(scaled[16] / plain[16], 0.303743, 1e-6);
  for (int i = 0; i <= 14; ++i) EXPECT_EQ(scaled[i], plain[i]) << i;
  for (int i = 18; i < 32; ++i) EXPECT_DOUBLE_EQ(scaled[i], plain[i] / 32) << i;
  // Linear: every frequency / factor, so position p rotates as p / factor does unscaled.
  model::RopeScaling linear;
  linear.kind = model::RopeScaling::Kind::kLinear;
  linear.factor = 2;
  const Tensor x0 = random_heads(1, 2, 16, 5);
  Tensor a = x0, b = x0;
  apply_rope(a, {10000.0, 1.0, linear}, 14);
  apply_rope(b, {10000.0, 1.0, {}}, 7);
  for (std::size_t i = 0; i < a.numel(); ++i) EXPECT_NEAR(a.data<float>()[i], b.data<float>()[i], 1e-6);
  model::RopeScaling yarn;
  yarn.kind = model::RopeScaling::Kind::kOther, yarn.name = "yarn";
  yarn.key = "rope_scaling.type", yarn.file = "m.json", yarn.line = 3;
  // Bad input at its key (exit 2 in every command), not an internal error.
  try {
    model::rope_inverse_frequencies(10000.0, 16, yarn);
    ADD_FAILURE() << "yarn was computed";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(e.location().file, "m.json");
    EXPECT_EQ(e.location().line, 3);
    EXPECT_EQ(e.key(), "rope_scaling.type");
    EXPECT_NE(std::string(e.what()).find("'yarn' is not computed"), std::string::npos) << e.what();
  }
}

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
  const RopeParams llama{10000.0, 1.0, {}}, phi{10000.0, 0.4, {}};
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
