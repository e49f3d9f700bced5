#include "sim/runtime/microbench/kernel_microbench.h"

#include <utility>

#include "kernels/attention/attention_lower.h"
#include "kernels/attention/flash_lower.h"
#include "kernels/attention/hvx_attention_lower.h"
#include "kernels/attention/int8_attention.h"
#include "kernels/softmax/softmax_lower.h"
#include "sim/config/config_error.h"
#include "sim/runtime/microbench/microbench_result.h"
#include "sim/runtime/work_runner.h"

namespace socsim::runtime {

namespace {

const config::SourceLocation kCli{"command line", 0, 0};

kernels::ExpVariant exp_variant(const MicrobenchRequest& r, kernels::ExpVariant dflt) {
  if (r.exp.empty()) return dflt;
  // fp32 and fp16 name the HVX variants as TTS's softmax ablation does (an FP32 or FP16 polynomial).
  if (r.exp == "exact" || r.exp == "fp32") return kernels::ExpVariant::kExact;
  if (r.exp == "poly" || r.exp == "fp16") return kernels::ExpVariant::kPoly;
  if (r.exp == "lut") return kernels::ExpVariant::kLut;
  throw config::ConfigError(kCli, "--exp", "expected exact (fp32) | poly (fp16) | lut, got '" + r.exp + "'");
}

// The work moves into the body and on into run_work (time_on_soc calls the body once): a copy at
// each hand-over held a long attention's steps three times at once, past --max-host-memory after
// the lowering had checked one list of them (1M x 1M FlashAttention: 959 MiB of steps, 3.0 GB held).
template <class Work>
nlohmann::ordered_json time_work(const MicrobenchRequest& r, Work work) {
  return time_on_soc(r, [work = std::move(work)](hw::Soc& soc) mutable { return run_work(soc, std::move(work)); });
}

}  // namespace

nlohmann::ordered_json kernel_softmax(const MicrobenchRequest& r) {
  if (r.m == 0 || r.n == 0) throw config::ConfigError(kCli, r.m == 0 ? "--m" : "--n", "softmax needs --m rows and --n columns");
  const kernels::SoftmaxShape s{r.m, r.n};
  const std::uint32_t threads = r.threads;
  nlohmann::ordered_json j;
  if (r.unit == "cpu") {
    j = time_work(r, kernels::lower_softmax_cpu(s, cpu_threads(r)));
  } else if (r.unit == "gpu") {
    j = time_work(r, kernels::lower_softmax_gpu(s, exp_variant(r, kernels::ExpVariant::kExact)));
  } else {
    if (!r.engine.empty() && r.engine != "hvx") {
      throw config::ConfigError(kCli, "--engine", "softmax on the NPU runs on HVX (--engine hvx); HMX only multiplies matrices");
    }
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
  if (r.heads == 0) throw config::ConfigError(kCli, "--heads", "attention needs at least one query head");
  const std::uint64_t kv_heads = r.kv_heads ? r.kv_heads : r.heads;
  if (kv_heads == 0 || r.heads % kv_heads != 0) throw config::ConfigError(kCli, "--kv-heads", "must divide --heads");
  const kernels::AttentionShape s{r.heads, kv_heads, r.k, r.q, r.kv - r.q, r.kv};
  const std::uint32_t threads = r.threads;
  nlohmann::ordered_json j;
  if (r.unit == "cpu") {
    j = time_work(r, kernels::lower_attention_cpu(s, cpu_threads(r)));
  } else if (r.unit == "gpu") {
    j = time_work(r, kernels::lower_attention_gpu(s));
  } else {
    const std::uint32_t t = threads ? threads : r.soc.npu.hvx.contexts;
    const std::string engine = r.engine.empty() ? "hmx" : r.engine;
    if (engine == "hvx") {
      // Everything on the vector units (a custom kernel, operands in TCM).
      if (r.dtype != hw::DType::kFp16) throw config::ConfigError(kCli, "--dtype", "HVX attention is FP16 (--dtype fp16)");
      if (r.operands != hw::OperandHome::kTcm) throw config::ConfigError(kCli, "--operands", "HVX attention runs on operands in TCM (--operands tcm)");
      j = time_work(r, kernels::lower_attention_hvx_npu(r.soc.npu, s, exp_variant(r, kernels::ExpVariant::kLut), t));
    } else if (engine != "hmx") {
      throw config::ConfigError(kCli, "--engine", "attention on the NPU runs on hmx or hvx, not '" + engine + "'");
    } else if (r.dtype == hw::DType::kInt8) {
      // llm.npu's form: one static graph, INT8 QK and PV on HMX, FP32 softmax on HVX.
      if (!r.exp.empty() && r.exp != "exact") throw config::ConfigError(kCli, "--exp", "the INT8 attention graph's softmax is exact FP32");
      kernels::NpuWork w = kernels::lower_attention_int8_npu(r.soc.npu, s, t);
      // npu-full's graph on shadowAttn's stack: client buffers unless --graph-io shared.
      if (!r.client_io) {
        for (auto& step : w.steps) {
          if (step.kind == kernels::NpuStep::Kind::kGraphCall) step.bytes = 0;
        }
      }
      j = time_work(r, std::move(w));
      j["graph_io"] = r.client_io ? "client" : "shared";
    } else if (r.dtype == hw::DType::kFp16) {
      kernels::FlashParams p = r.switches.flash;
      p.exp = exp_variant(r, kernels::ExpVariant::kLut);
      j = time_work(r, kernels::lower_flash_attention_npu(r.soc.npu, s, p, t, r.operands));
    } else {
      throw config::ConfigError(kCli, "--dtype", "attention on the NPU is fp16 (FlashAttention on HMX) or int8 (static graph)");
    }
    j["engine"] = engine;
  }
  j["heads"] = r.heads, j["kv_heads"] = kv_heads, j["head_dim"] = r.k, j["q"] = r.q, j["kv"] = r.kv;
  return j;
}

}  // namespace socsim::runtime
