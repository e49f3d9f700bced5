// shadowAttn's plans reserve their jobs once (issue #21; a plan that outgrew its reserve would be
// moved into fresh pages by doubling): exactly, where the count is known before the plan is built
// (the baselines' attention jobs, shadowAttn's without fused launches, every decode window), and
// otherwise with at most one spare job per head for each layer's attention of each chunk (heads
// that share a bucket share an estimation launch). Checked for the five attention systems at
// batch 1 and 4, at two chunk lengths, and without fusion, the planner or out-of-order picking.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/model/model_config.h"
#include "tests/support/configured_system.h"

namespace socsim::systems {
namespace {

const std::string kRoot = SOCSIM_SOURCE_DIR;

TEST(ShadowAttnPlanReserve, ThePlanFitsItsReserve) {
  int checked = 0;
  for (const std::string id : {"shadowattn", "cg-full", "cg-sparse", "cg-block-sparse", "npu-full"}) {
    // shadowAttn's own options only where they have an effect (the baselines refuse them).
    const std::vector<std::string> third = id == "shadowattn" ? std::vector<std::string>{"shadowattn.fuse=false", "shadowattn.reorder=false"}
                                                              : std::vector<std::string>{"llm_npu.ooe=false"};
    for (const std::vector<std::string>& sets : {std::vector<std::string>{}, {"llm_npu.chunk=128"}, third}) {
      test::ConfiguredSystem r("snapdragon-8gen3", sets);
      r.req.model = model::load_model_config(kRoot + "/models/qwen2-0.5b.json");
      r.configure(id);
      const bool fused = id == "shadowattn" && sets != third;
      for (std::uint64_t batch : {1u, 4u}) {
        const std::string what = id + " batch " + std::to_string(batch) + (sets.empty() ? "" : " " + sets.front());
        // Prefill with a few decode steps.
        const runtime::Plan plan = r.system->plan(r.req.soc, r.req.model, {700, 8, batch, 0, false, 40});
        // Attention cuts: the host's job writing the keys before each (chunk, layer)'s attention.
        const auto cuts = static_cast<std::size_t>(std::count_if(plan.jobs.begin(), plan.jobs.end(), [](const runtime::Job& j) {
          return j.name.ends_with(".kv") || j.name.ends_with(".pre");
        }));
        EXPECT_GT(cuts, 0u) << what;
        EXPECT_GE(plan.jobs.capacity(), plan.jobs.size()) << what;
        EXPECT_LE(plan.jobs.capacity() - plan.jobs.size(), fused ? cuts * r.req.model.heads : 0)
            << what << ": " << plan.jobs.size() << " jobs in a capacity of " << plan.jobs.capacity();
        // A later window of decode steps alone: exactly.
        const runtime::Plan window = r.system->plan(r.req.soc, r.req.model, {700, 8, batch, 16, true, 40});
        EXPECT_EQ(window.jobs.capacity(), window.jobs.size()) << what << " window";
        EXPECT_EQ(window.decode_step_end.size(), 8u) << what << " window";
        checked += 2;
      }
    }
  }
  EXPECT_EQ(checked, 5 * 3 * 2 * 2);
}

}  // namespace
}  // namespace socsim::systems
