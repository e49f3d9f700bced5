// job_signature (sim/runtime/job_profiler.h): what a job's time alone depends on is in it, a
// per-head name suffix is not, and strings of different lengths stay apart.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <vector>

#include "sim/runtime/job_profiler.h"

namespace socsim::runtime {
namespace {

Job base_job() {
  Job j;
  j.unit = kernels::Unit::kCpu;
  j.precision = Precision::kFp32;
  j.cpu_threads = 2;
  j.cpu_cluster = "mid";
  model::GraphOp g;
  g.op = {"down_proj", model::OpKind::kMatMul, 4, 64, 128, 1, 0, 64 * 128};
  j.ops = {g, g};
  return j;
}

TEST(JobSignature, EveryFieldTheTimeDependsOnChangesIt) {
  const std::vector<std::function<void(Job&)>> changes = {
      [](Job& j) { j.unit = kernels::Unit::kGpu; },
      [](Job& j) { j.precision = Precision::kW4A16; },
      [](Job& j) { j.cpu_threads = 3; },
      [](Job& j) { j.storage_read_bytes = 1; },
      [](Job& j) { j.npu_graph = "g"; },
      [](Job& j) { j.npu_client_io = true; },
      [](Job& j) { j.cpu_engine = CpuEngine::kLlamaCpp; },
      [](Job& j) { j.cpu_cluster = "prime"; },
      [](Job& j) { j.cpu_cluster = "mid2"; },
      [](Job& j) { j.ops.pop_back(); },
      [](Job& j) { j.ops[1].op.name = "up_proj"; },
      [](Job& j) { j.ops[1].op.name = "down_proj_"; },  // a longer name with the same first word
      [](Job& j) { j.ops[0].op.kind = model::OpKind::kElementwise; },
      [](Job& j) { j.ops[0].op.m = 5; },
      [](Job& j) { j.ops[0].op.k = 65; },
      [](Job& j) { j.ops[0].op.n = 129; },
      [](Job& j) { j.ops[0].op.batch = 2; },
      [](Job& j) { j.ops[0].op.elements = 1; },
      [](Job& j) { j.ops[0].op.weight_params = 1; },
      [](Job& j) { j.npu_kernels.hmx_gemv = true; },
      [](Job& j) { j.npu_kernels.w4a16 = W4A16Kernel::kCustom; },
      [](Job& j) { j.npu_kernels.dequant = kernels::DequantLayout::kBaseline; },
      [](Job& j) { j.npu_kernels.q8_0_down = true; },
      [](Job& j) { j.npu_kernels.prefetch_weights = true; },
      [](Job& j) { j.npu_kernels.exp = kernels::ExpVariant::kExact; },
      [](Job& j) { j.npu_kernels.graph_layout = kernels::GraphActivationLayout::kEquivalentShape; },
  };
  std::set<Signature> seen = {job_signature(base_job())};
  for (std::size_t i = 0; i < changes.size(); ++i) {
    Job j = base_job();
    changes[i](j);
    EXPECT_TRUE(seen.insert(job_signature(j)).second) << "change " << i << " left the signature as it was";
  }
  // Moving a name's bytes between the cluster and an op's name keeps them apart (lengths go first).
  Job a = base_job(), b = base_job();
  a.cpu_cluster = "ab", a.ops[0].op.name = "c";
  b.cpu_cluster = "a", b.ops[0].op.name = "bc";
  EXPECT_NE(job_signature(a), job_signature(b));
}

TEST(JobSignature, PerHeadSuffixAndSchedulingFieldsLeaveItAlone) {
  Job j = base_job();
  const Signature want = job_signature(j);
  j.ops[0].op.name = "down_proj.h7";
  j.ops[1].op.name = "down_proj.h12";
  j.name = "another label";
  j.deps = {3};
  j.lane = "npu";
  EXPECT_EQ(job_signature(j), want);
}

}  // namespace
}  // namespace socsim::runtime
