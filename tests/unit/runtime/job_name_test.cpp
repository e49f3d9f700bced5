// op_job_name (sim/runtime/job_name.h) gives the label the chained concatenation it replaced gave.
#include "sim/runtime/job_name.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace socsim::runtime {
namespace {

std::string concatenated(const model::GraphOp& g) {
  return std::string(g.phase == model::Phase::kPrefill ? "prefill" : "decode") + std::to_string(g.step) + ".L" +
         std::to_string(g.layer) + "." + g.op.name;
}

TEST(OpJobName, SameLabelAsConcatenation) {
  for (const auto phase : {model::Phase::kPrefill, model::Phase::kDecode}) {
    for (const std::uint64_t step : {std::uint64_t{0}, std::uint64_t{7}, std::uint64_t{100000}, std::numeric_limits<std::uint64_t>::max()}) {
      for (const std::uint32_t layer : {0u, 31u, std::numeric_limits<std::uint32_t>::max()}) {
        for (const char* name : {"", "q", "attention.softmax_with_a_long_name_beyond_sso"}) {
          model::GraphOp g;
          g.op.name = name;
          g.phase = phase, g.step = step, g.layer = layer;
          EXPECT_EQ(op_job_name(g), concatenated(g));
        }
      }
    }
  }
  model::GraphOp g;
  g.op.name = "up";
  g.phase = model::Phase::kDecode, g.step = 3, g.layer = 12;
  EXPECT_EQ(op_job_name(g), "decode3.L12.up");
}

}  // namespace
}  // namespace socsim::runtime
