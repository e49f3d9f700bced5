// The recompute cost (recompute_cost.h): hand cases, a synthetic quadratic profile it must
// recover exactly, and the profiled cost against simulated prefills it was not fitted to.
#include "sim/systems/llms/recompute_cost.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "sim/config/config_tree.h"
#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"
#include "sim/report/trace.h"
#include "sim/runtime/simulate_run.h"
#include "sim/systems/llms/service_costs.h"
#include "sim/systems/system.h"

namespace socsim::systems::llms {
namespace {

const std::string kRoot = SOCSIM_SOURCE_DIR;

TEST(RecomputeCost, PairsAreTheCausalQueryKeyPairs) {
  EXPECT_DOUBLE_EQ(RecomputeCost::pairs_of(0, 1), 1.0);
  EXPECT_DOUBLE_EQ(RecomputeCost::pairs_of(0, 4), 10.0);       // 1 + 2 + 3 + 4
  EXPECT_DOUBLE_EQ(RecomputeCost::pairs_of(100, 2), 203.0);    // 101 + 102
  // Chunks in sequence add up to the whole prefix's pairs.
  EXPECT_DOUBLE_EQ(RecomputeCost::pairs_of(0, 16) + RecomputeCost::pairs_of(16, 16), RecomputeCost::pairs_of(0, 32));
}

TEST(RecomputeCost, LinearHandCase) {
  const auto c = RecomputeCost::linear(0.01, 0.002, 1e-6);
  EXPECT_EQ(c.at(0, 0), 0.0);  // nothing recomputed costs nothing
  EXPECT_DOUBLE_EQ(c.cold(16), 0.01 + 16 * 0.002);
  EXPECT_DOUBLE_EQ(c.at(16, RecomputeCost::pairs_of(0, 16)), c.cold(16));
  // 16 tokens after 1000 resident ones: 16,000 pairs more than a cold prefill's.
  EXPECT_NEAR(c.at(16, RecomputeCost::pairs_of(1000, 16)), 0.01 + 16 * 0.002 + 16000 * 1e-6, 1e-15);
  // Fewer pairs than a cold prefill's are not a placement: charged as cold.
  EXPECT_DOUBLE_EQ(c.at(16, 1), c.cold(16));
}

// Cold prefills of T(t) = a + b t + q t^2 beyond the first points (the matmuls linear, the
// attention quadratic): per_pair is 2q, the interpolation is exact at the points, and past the
// longest the cost continues on the quadratic.
TEST(RecomputeCost, RecoversTheAttentionOfAQuadraticProfile) {
  const double a = 0.1, b = 0.006, q = 1e-6;
  auto f = [&](double t) { return a + b * t + q * t * t; };
  std::vector<double> x{16, 32, 64, 128, 256, 512, 1024}, y;
  for (double t : x) y.push_back(f(t));
  const auto c = RecomputeCost::from_profile(x, y);
  EXPECT_NEAR(c.per_pair(), 2 * q, 1e-15);
  for (double t : x) EXPECT_NEAR(c.cold(t), f(t), 1e-12);
  EXPECT_NEAR(c.cold(2048), f(2048), 1e-9);  // past the longest: the quadratic continues
  EXPECT_NEAR(c.cold(5000), f(5000), 1e-9);
  EXPECT_DOUBLE_EQ(c.cold(4), c.cold(16));  // below the shortest: flat
  EXPECT_EQ(c.longest_profiled_tokens(), 1024.0);
  // The second half of a 1024-token context recomputed with the first half resident: what the
  // whole prefill costs beyond the first half's (the cold part of 512 tokens plus 512 x 512 pairs).
  EXPECT_NEAR(c.at(512, RecomputeCost::pairs_of(512, 512)), f(512) + 2 * q * 512 * 512, 1e-12);
  // Curvature that falls (a saturating unit) is not attention: never a negative per pair.
  const auto s = RecomputeCost::from_profile({1, 2, 4}, {1, 1.5, 1.75});
  EXPECT_EQ(s.per_pair(), 0.0);
}

// A window just past a doubling (4096, then 4100) and a profile with a step in it (a unit's
// graph granularity: each 256 tokens a new graph call) must not read the step as attention: the
// curvature comes from three prefills spanning a factor of 4 (1024, 2048, 4100 here).
TEST(RecomputeCost, AStepBetweenCloseProfilePointsIsNotAttention) {
  const double q = 1e-6;
  auto f = [&](double t) { return 0.05 + 0.004 * t + q * t * t + 0.1 * std::ceil(t / 256); };
  std::vector<double> x{16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 4100}, y;
  for (double t : x) y.push_back(f(t));
  const auto c = RecomputeCost::from_profile(x, y);
  // Through 1024, 2048, 4100 the steps add about 0.1 / 256 per token, nearly nothing quadratic:
  // 2q within 3% (1.6% off).
  EXPECT_NEAR(c.per_pair() / (2 * q), 1.0, 0.03);
  // The neighbours' quadratic (2048, 4096, 4100) would say 13x too much ...
  const double s01 = (f(4096) - f(2048)) / 2048, s12 = (f(4100) - f(4096)) / 4;
  EXPECT_GT(2 * (s12 - s01) / (4100 - 2048), 10 * 2 * q);
  // ... so three points that do not span a factor of 4 give no attention term at all (it took the
  // first point as the quarter: a serve whose contexts reached 33 tokens, profiled at 16, 32 and
  // 33, priced 850x the attention per pair).
  EXPECT_EQ(RecomputeCost::from_profile({2048, 4096, 4100}, {f(2048), f(4096), f(4100)}).per_pair(), 0.0);
  EXPECT_EQ(RecomputeCost::from_profile({16, 32, 33}, {f(16), f(32), f(33)}).per_pair(), 0.0);
}

// The attention per pair fitted up to a given length: a profile that goes on past it (a trace
// reaching further) fits the same, and interpolates the shorter lengths through the same points.
TEST(RecomputeCost, ThePairFitStopsAtItsLengthWhateverTheProfileReaches) {
  auto f = [](double t) { return 0.05 + 0.004 * t + 1e-6 * t * t * (t > 4096 ? 1.5 : 1.0); };
  std::vector<double> x{16, 32, 64, 128, 256, 512, 1024, 2048, 4096}, y;
  for (double t : x) y.push_back(f(t));
  const auto cut = RecomputeCost::from_profile(x, y, 4096);
  x.push_back(8192), y.push_back(f(8192));
  x.push_back(16384), y.push_back(f(16384));
  const auto longer = RecomputeCost::from_profile(x, y, 4096);
  EXPECT_DOUBLE_EQ(cut.per_pair(), longer.per_pair());
  EXPECT_NEAR(cut.per_pair(), 2e-6, 1e-9);
  EXPECT_DOUBLE_EQ(cut.cold(3000), longer.cold(3000));
  EXPECT_GT(RecomputeCost::from_profile(x, y).per_pair(), 2.5e-6);  // fitted at the top: 1024-16384 sees the 1.5x
}

TEST(RecomputeCost, RejectsProfilesItCannotUse) {
  EXPECT_THROW(RecomputeCost::from_profile({16}, {1}), std::invalid_argument);
  EXPECT_THROW(RecomputeCost::from_profile({16, 16}, {1, 2}), std::invalid_argument);
  EXPECT_THROW(RecomputeCost::from_profile({32, 16}, {1, 2}), std::invalid_argument);
  EXPECT_THROW(RecomputeCost::from_profile({0, 16}, {1, 2}), std::invalid_argument);
  EXPECT_THROW(RecomputeCost::from_profile({16, 32}, {1, -2}), std::invalid_argument);
  EXPECT_THROW(RecomputeCost::from_profile({16, 32}, {1, 2, 3}), std::invalid_argument);
}

double simulated_prefill_s(const hw::SocSpec& soc, const model::ModelConfig& model, std::uint64_t tokens) {
  auto system = SystemRegistry::builtin().make("gpu-only");
  auto options = config::ConfigTree::load_string("{}", "test");
  auto root = options.root();
  system->configure(root, soc, model);
  runtime::RunRequest req;
  req.soc_id = soc.name;
  req.soc = soc;
  req.model = model;
  req.system = "gpu-only";
  req.prompt_tokens = tokens;
  req.decode_tokens = 0;
  report::TraceRecorder trace(report::TraceDetail::kOff);
  return runtime::simulate_run(req, *system, trace).prefill_ms.value_or(0) / 1e3;
}

// Llama-2-7B on the Jetson Orin NX, recomputed by gpu-only (llms.ablation.full's setting). The
// profile's prefills are 1, 2, 4 ... 256 chunks of 16 tokens; recomputing the last quarter or half
// of a 4096-token context with the rest resident costs what the full prefill costs beyond the
// resident part's (the matmuls are per token, the attention's pairs add up), and a prefill of a
// length the profile did not run is interpolated. Without the attention over the resident
// context (the cost before this model) the second half was 32% cheaper than its prefills say.
TEST(RecomputeCost, ProfiledCostPredictsRecomputeOverAResidentContext) {
  const auto soc = hw::load_soc_spec(kRoot + "/soc_configs/jetson-orin-nx.yaml", {});
  const auto model = model::load_model_config(kRoot + "/models/llama-2-7b.json");
  ASSERT_EQ(model.max_context, 4096u);
  Options o;
  const auto c = profile_costs(soc, model, o, model.layers * 2ull * model.kv_heads * model.head_dim * o.chunk_tokens, 1);
  EXPECT_EQ(c.recompute_s.longest_profiled_tokens(), 4096.0);
  EXPECT_GT(c.recompute_s.per_pair(), 0.0);
  const double full = simulated_prefill_s(soc, model, 4096);
  for (std::uint64_t resident : {2048u, 3072u}) {
    const double truth = full - simulated_prefill_s(soc, model, resident);
    const double tokens = static_cast<double>(4096 - resident);
    const double predicted = c.recompute_s.at(tokens, RecomputeCost::pairs_of(static_cast<double>(resident), tokens));
    EXPECT_NEAR(predicted / truth, 1.0, 0.05) << resident << " resident: " << predicted << " s vs " << truth;
    EXPECT_LT(c.recompute_s.cold(tokens) / truth, 0.8) << "the attention over the resident context matters here";
  }
  // Lengths between the profiled ones.
  for (std::uint64_t t : {96u, 3000u}) EXPECT_NEAR(c.recompute_s.cold(static_cast<double>(t)) / simulated_prefill_s(soc, model, t), 1.0, 0.05) << t;
}

}  // namespace
}  // namespace socsim::systems::llms
