#pragma once
// The name of a job that starts with graph op `g`: "<prefill|decode><step>.L<layer>.<op>", the
// label the trace, the report's per-job lists and deadlock reports show. Built in one allocation:
// a plan names a job per placement change of every layer of every step (chained operator+ made
// a temporary per piece).
#include <charconv>
#include <string>

#include "sim/model/graph_builder.h"

namespace socsim::runtime {

inline std::string op_job_name(const model::GraphOp& g) {
  const char* phase = g.phase == model::Phase::kPrefill ? "prefill" : "decode";
  char step[24], layer[24];
  const auto s_end = std::to_chars(step, step + sizeof step, g.step).ptr;
  const auto l_end = std::to_chars(layer, layer + sizeof layer, g.layer).ptr;
  std::string name;
  name.reserve(7 + static_cast<std::size_t>(s_end - step) + 2 + static_cast<std::size_t>(l_end - layer) + 1 + g.op.name.size());
  name.append(phase).append(step, s_end).append(".L").append(layer, l_end).append(".").append(g.op.name);
  return name;
}

}  // namespace socsim::runtime
