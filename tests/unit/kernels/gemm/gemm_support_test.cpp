// The GEMM engine's support pieces: bulk conversions, fork-join, output partitioning.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "kernels/gemm/bulk_convert.h"
#include "kernels/gemm/gemm_float.h"
#include "kernels/gemm/packed_gemm.h"
#include "tests/unit/kernels/gemm/kernel_test_util.h"

namespace socsim::kernels {
namespace {

TEST(GemmBulkConvert, MatchesScalarConversionsOnEveryHalf) {
  std::vector<half> all(65536);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = half_from_bits(static_cast<std::uint16_t>(i));
  std::vector<float> wide(all.size());
  widen(all.data(), wide.data(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    const float want = static_cast<float>(all[i]);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(wide[i]));
    } else {
      ASSERT_EQ(wide[i], want) << i;
    }
  }
  // Narrowing rounds to nearest even, like static_cast: ties, subnormals, overflow.
  std::vector<float> f = {1.0f + std::ldexp(1.0f, -11), 1.0f + 3 * std::ldexp(1.0f, -11), 70000.0f, 1e-7f, -0.0f, 3.1415926f,
                          65519.0f, 65520.0f, std::ldexp(1.0f, -25), 0.1f, -2.5f};
  std::vector<half> h(f.size());
  narrow(f.data(), h.data(), f.size());
  std::vector<float> r = f;
  round_through_half(r.data(), r.size());
  for (std::size_t i = 0; i < f.size(); ++i) {
    EXPECT_EQ(half_bits(h[i]), half_bits(static_cast<half>(f[i]))) << f[i];
    EXPECT_EQ(r[i], static_cast<float>(static_cast<half>(f[i]))) << f[i];
  }
  std::int8_t i8[] = {-128, -1, 0, 1, 127};
  float out[5];
  widen(i8, out, 5);
  EXPECT_EQ(out[0], -128.0f);
  EXPECT_EQ(out[4], 127.0f);
}

TEST(GemmParallel, RunsEveryIndexOnceAndRethrows) {
  std::atomic<int> sum{0};
  parallel_for(5, [&](std::size_t i) { sum += static_cast<int>(i) + 1; });
  EXPECT_EQ(sum.load(), 15);
  EXPECT_THROW(parallel_for(3, [](std::size_t i) {
                 if (i == 2) throw std::runtime_error("boom");
               }),
               std::runtime_error);
}

// A host that refuses threads (a pids limit): every index still runs once, on the calling thread,
// and an index's exception still reaches the caller; a GEMM gives the same bits as with threads.
TEST(GemmParallel, RunsEveryIndexOnTheCallerWhenTheHostRefusesThreads) {
  struct Refuse {
    Refuse() { detail::refuse_threads_for_tests() = true; }
    ~Refuse() { detail::refuse_threads_for_tests() = false; }
  };
  const Tensor a = test::random_f32(70, 300, 1), w = test::random_f32(300, 90, 2);
  const Tensor threaded = gemm_f32(a, w, 3);
  const Refuse refuse;
  std::vector<std::thread::id> ran(4);
  parallel_for(4, [&](std::size_t i) { ran[i] = std::this_thread::get_id(); });
  for (const auto& id : ran) EXPECT_EQ(id, std::this_thread::get_id());
  EXPECT_THROW(parallel_for(3, [](std::size_t i) {
                 if (i == 2) throw std::runtime_error("boom");
               }),
               std::runtime_error);
  const Tensor inline_run = gemm_f32(a, w, 3);
  ASSERT_EQ(inline_run.numel(), threaded.numel());
  EXPECT_EQ(std::memcmp(inline_run.data<float>().data(), threaded.data<float>().data(), threaded.numel() * sizeof(float)), 0);
}

// The micro-kernel rounds each product, then each sum, in k order, whichever copy the host runs
// (x86-64-v3 or baseline): a copy that fused them into FMAs would give FP32 GEMMs, and so the
// reports' accuracy figures, other last bits on hosts with FMA than on hosts without. It checks
// the copy this host runs: on an FMA host (CI's) the one that was contracted.
TEST(GemmMicrokernel, RoundsEveryProductThenEverySumOnEveryHost) {
  constexpr std::int64_t kc = 37;
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> a(kc * kGemmMr), b(kc * kGemmNr), acc(kGemmMr * kGemmNr);
  for (auto* v : {&a, &b, &acc})
    for (auto& x : *v) x = u(gen);
  std::vector<float> want = acc;
  for (int r = 0; r < kGemmMr; ++r) {
    for (int c = 0; c < kGemmNr; ++c) {
      float sum = want[r * kGemmNr + c];
      for (std::int64_t kk = 0; kk < kc; ++kk) {
        volatile float product = a[kk * kGemmMr + r] * b[kk * kGemmNr + c];  // rounded here, never fused
        sum = sum + product;
      }
      want[r * kGemmNr + c] = sum;
    }
  }
  gemm_microkernel(kc, a.data(), b.data(), acc.data());
  int differing = 0;
  for (std::size_t i = 0; i < acc.size(); ++i) differing += std::memcmp(&acc[i], &want[i], sizeof(float)) != 0;
  EXPECT_EQ(differing, 0) << "of " << acc.size() << " sums";
}

TEST(GemmParallel, OutputSplitCoversEverythingOnTileEdges) {
  using packed_gemm_detail::split_output;
  // n >= m: column strips on 16-column edges.
  const auto cols = split_output({10, 5, 100}, 3);
  ASSERT_EQ(cols.size(), 3u);
  EXPECT_EQ(cols[0].j0, 0);
  EXPECT_EQ(cols[0].j1 % 16, 0);
  EXPECT_EQ(cols[2].j1, 100);
  for (std::size_t i = 1; i < cols.size(); ++i) EXPECT_EQ(cols[i].j0, cols[i - 1].j1);
  // m > n: row strips on 6-row edges; never more strips than micro-tiles.
  const auto rows = split_output({13, 5, 4}, 8);
  ASSERT_EQ(rows.size(), 3u);  // 13 rows = 3 micro-tile rows
  EXPECT_EQ(rows[1].i0, 6);
  EXPECT_EQ(rows[2].i1, 13);
}

}  // namespace
}  // namespace socsim::kernels
