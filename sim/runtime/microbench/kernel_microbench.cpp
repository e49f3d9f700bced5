#include "sim/runtime/microbench/kernel_microbench.h"

#include "kernels/attention/attention_lower.h"
#include "kernels/attention/flash_lower.h"
#include "kernels/softmax/softmax_lower.h"
#include "sim/config/config_error.h"
#include "sim/runtime/microbench/microbench_result.h"
#include "sim/runtime/work_runner.h"

namespace socsim::runtime {

namespace {

const config::SourceLocation kCli{"command line", 0, 0};
// CPU kernels use llama.cpp/MLLM's default of 4 threads; NPU kernels all HVX contexts.
constexpr std::uint32_t kDefaultCpuThreads = 4;

kernels::ExpVariant exp_variant(const MicrobenchRequest& r, kernels::ExpVariant dflt) {
  if (r.exp.empty()) return dflt;
  if (r.exp == "exact") return kernels::ExpVariant::kExact;
  if (r.exp == "poly") return kernels::ExpVariant::kPoly;
  if (r.exp == "lut") return kernels::ExpVariant::kLut;
  throw config::ConfigError(kCli, "--exp", "expected exact | poly | lut, got '" + r.exp + "'");
}

template <class Work>
nlohmann::ordered_json time_work(const MicrobenchRequest& r, Work work) {
  return time_on_soc(r, [work](hw::Soc& soc) { return run_work(soc, work); });
}

}  // namespace

nlohmann::ordered_json kernel_softmax(const MicrobenchRequest& r) {
  if (r.m == 0 || r.n == 0) throw config::ConfigError(kCli, r.m == 0 ? "--m" : "--n", "softmax needs --m rows and --n columns");
  const kernels::SoftmaxShape s{r.m, r.n};
  const std::uint32_t threads = r.threads;
  nlohmann::ordered_json j;
  if (r.unit == "cpu") {
    j = time_work(r, kernels::lower_softmax_cpu(s, threads ? threads : kDefaultCpuThreads));
  } else if (r.unit == "gpu") {
    j = time_work(r, kernels::lower_softmax_gpu(s, exp_variant(r, kernels::ExpVariant::kExact)));
  } else {
    j = time_work(r, kernels::lower_softmax_npu(r.soc.npu, s, exp_variant(r, kernels::ExpVariant::kLut),
                                                threads ? threads : r.soc.npu.hvx.contexts));
  }
  j["rows"] = r.m, j["cols"] = r.n;
  return j;
}

nlohmann::ordered_json kernel_attention(const MicrobenchRequest& r) {
  if (r.q == 0) throw config::ConfigError(kCli, "--q", "attention needs --q query rows");
  if (r.kv < r.q) throw config::ConfigError(kCli, "--kv", "must be >= --q (the queries are the last --q of the --kv keys)");
  if (r.k == 0) throw config::ConfigError(kCli, "--k", "attention needs --k (the head dimension)");
  const std::uint64_t kv_heads = r.kv_heads ? r.kv_heads : r.heads;
  if (kv_heads == 0 || r.heads % kv_heads != 0) throw config::ConfigError(kCli, "--kv-heads", "must divide --heads");
  const kernels::AttentionShape s{r.heads, kv_heads, r.k, r.q, r.kv - r.q, r.kv};
  const std::uint32_t threads = r.threads;
  nlohmann::ordered_json j;
  if (r.unit == "cpu") {
    j = time_work(r, kernels::lower_attention_cpu(s, threads ? threads : kDefaultCpuThreads));
  } else if (r.unit == "gpu") {
    j = time_work(r, kernels::lower_attention_gpu(s));
  } else {
    kernels::FlashParams p;
    p.exp = exp_variant(r, kernels::ExpVariant::kLut);
    j = time_work(r, kernels::lower_flash_attention_npu(r.soc.npu, s, p, threads ? threads : r.soc.npu.hvx.contexts, r.operands));
  }
  j["heads"] = r.heads, j["kv_heads"] = kv_heads, j["head_dim"] = r.k, j["q"] = r.q, j["kv"] = r.kv;
  return j;
}

}  // namespace socsim::runtime
