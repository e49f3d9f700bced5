// What serve's functional mode is counted to cost before it runs (density_work.h), against hand
// counts of each context's window as calls grow and slide it.
#include "sim/systems/llms/density_work.h"

#include <gtest/gtest.h>

#include <vector>

namespace socsim::systems::llms {
namespace {

Call call(std::uint32_t context, std::uint32_t delta) { return {0.0, context, delta}; }

TEST(DensityWork, EachCallAttendsOverItsContextsWindowAsItGrowsAndSlides) {
  // Window 10: context 0 holds 4, 8, then 10 (the oldest slide out); context 1's call of 20 tokens
  // counts the 10 the window keeps, as serve caps a call's delta.
  const auto w = density_work({call(0, 4), call(0, 4), call(1, 20), call(0, 4)}, 10);
  EXPECT_DOUBLE_EQ(w.window_tokens, 4 + 8 + 10 + 10);
  EXPECT_DOUBLE_EQ(w.new_tokens, 4 + 4 + 10 + 4);
  EXPECT_DOUBLE_EQ(w.calls, 4);
  // Both contexts' tokens at each call: 4, 8, 8 + 10, 10 + 10 (a reclaim scans them all).
  EXPECT_DOUBLE_EQ(w.held_tokens, 4 + 8 + 18 + 20);
  EXPECT_DOUBLE_EQ(w.host_seconds(16), 5e-6 * 32 + 2e-6 * 22 + 4 / 15000.0 + 4e-9 * 50 / 16 + 6.4e-8 * 32 / 16);
  // Timing mode: the calls, the chunks held, and LLMS's re-ranking of each called context's
  // window; the policies that rank no chunks pay no re-ranking. Smaller chunks are more chunks.
  EXPECT_DOUBLE_EQ(w.timing_seconds(true, 16), 4 / 15000.0 + 4e-9 * 50 / 16 + 6.4e-8 * 32 / 16);
  EXPECT_DOUBLE_EQ(w.timing_seconds(true, 4), 4 / 15000.0 + 4e-9 * 50 / 4 + 6.4e-8 * 32 / 4);
  EXPECT_DOUBLE_EQ(w.timing_seconds(false, 4), 4 / 15000.0 + 4e-9 * 50 / 4);
}

TEST(DensityWork, TheSearchCountsEverySmallerContextCountFromTheCallsMeanDelta) {
  // Four calls of 4 tokens over two contexts, window 10. Two contexts: the trace itself, all in
  // context 0: 4 + 8 + 10 + 10. One context: the same four calls, windows 4, 8 (two calls to fill
  // 10 tokens at 4 each), then 10 and 10.
  const std::vector<Call> calls = {call(0, 4), call(0, 4), call(0, 4), call(0, 4)};
  const auto w = density_search_work(calls, 2, 10);
  EXPECT_DOUBLE_EQ(w.window_tokens, 32 + (4 + 8 + 10 + 10));
  EXPECT_DOUBLE_EQ(w.new_tokens, 16 + 16);
  EXPECT_DOUBLE_EQ(w.calls, 8);
  // Held: the trace's 4, 8, 10, 10; one context fills its window after two calls of 4: 4, 8, 10, 10.
  EXPECT_DOUBLE_EQ(w.held_tokens, 32 + 32);
  // Spread over fewer contexts each one's window fills sooner: four calls over two contexts of
  // their own cost 4 + 8 each, on one context 4 + 8 + 10 + 10.
  const auto spread = density_search_work({call(0, 4), call(1, 4), call(0, 4), call(1, 4)}, 2, 10);
  EXPECT_DOUBLE_EQ(spread.window_tokens, (4 + 4 + 8 + 8) + (4 + 8 + 10 + 10));
  EXPECT_DOUBLE_EQ(density_search_work(calls, 1, 10).window_tokens, density_work(calls, 10).window_tokens);
  EXPECT_DOUBLE_EQ(density_search_work({}, 4, 10).calls, 0);
  // One context serves context 0's dataset only: its mean delta (2), not the whole trace's (6).
  const auto own = density_search_work({call(0, 2), call(1, 10), call(0, 2), call(1, 10)}, 2, 100);
  EXPECT_DOUBLE_EQ(own.window_tokens, (2 + 10 + 4 + 20) + (2 + 4 + 6 + 8));
  EXPECT_DOUBLE_EQ(own.new_tokens, 24 + 4 * 2);
}

}  // namespace
}  // namespace socsim::systems::llms
