#pragma once
// Offline profiling of jobs, as llm.npu's scheduler has it: each job's duration when it runs
// alone on an idle SoC (no dependencies, no other traffic, its NPU graph already built). Jobs
// with the same signature (unit, precision, threads, lane, storage bytes and every op's shape)
// are profiled once.
#include <map>
#include <string>

#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"
#include "sim/runtime/job.h"

namespace socsim::runtime {

class JobProfiler {
 public:
  JobProfiler(const hw::SocSpec& soc, const model::ModelConfig& model) : soc_(soc), model_(model) {}
  Tick duration(const Job& job);
  // Fills `estimate` of every job of the plan.
  void annotate(Plan& plan);
  std::size_t profiled() const { return cache_.size(); }

 private:
  const hw::SocSpec& soc_;
  const model::ModelConfig& model_;
  std::map<std::string, Tick> cache_;
};

std::string job_signature(const Job& job);

}  // namespace socsim::runtime
