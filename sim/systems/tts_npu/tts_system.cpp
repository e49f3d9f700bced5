#include "sim/systems/tts_npu/tts_system.h"

#include <string>

#include "kernels/softmax/lut_exp.h"
#include "sim/config/config_error.h"
#include "sim/systems/memory_fit.h"
#include "sim/systems/plan_builder.h"
#include "sim/systems/tts_npu/tts_memory.h"

namespace socsim::systems {

namespace {

const config::SourceLocation kCli{"command line", 0, 0};

// The PRM's value head: one score per token of every path (the head the reward model has
// instead of lm_head), FP32 on the CPU.
model::OpDesc value_head_op(const model::ModelConfig& m, std::uint64_t rows) {
  model::OpDesc op{"value_head", model::OpKind::kMatMul};
  op.m = rows, op.k = m.hidden, op.n = 1, op.weight_params = m.hidden;
  return op;
}

}  // namespace

void TtsNpuSystem::configure(config::Section& options, const hw::SocSpec& soc, const model::ModelConfig&) {
  require_npu(soc, id());  // (else the address-space check below would read an NPU of 0 B)
  options_ = tts::read_options(options, soc);
}

void TtsNpuSystem::use_data(const runtime::DataDriven* data) {
  measured_ = data != nullptr && !data->decode_steps.empty();
  active_ = measured_ ? data->active_per_step() : std::vector<std::uint64_t>{};
}

std::string TtsNpuSystem::functional_unsupported() const {
  // The reward role's value head has no weights in the checkpoints socsim reads (a PRM's
  // score head is not lm_head), and functional mode compares the heads' outputs.
  if (options_.reward) return "tts.role=reward: functional mode computes and compares lm_head's logits, and a reward model's value head has no weights socsim reads; run the policy role functionally, or the reward role in timing mode";
  return {};
}

runtime::SyncPolicy TtsNpuSystem::sync_policy() const {
  // Zero-copy rpcmem buffers, and the host polls the shared-memory queue for the NPU's answer.
  runtime::SyncPolicy p;
  p.shared_buffers = true;
  p.poll = true;
  return p;
}

runtime::Plan TtsNpuSystem::plan(const hw::SocSpec& soc, const model::ModelConfig& m, const RequestShape& r) {
  if (options_.reward && r.decode > 0) {
    throw config::ConfigError(kCli, "--decode", "tts.role=reward scores the request's tokens (a prefill): use --decode 0");
  }
  const std::uint64_t context = r.prompt + r.total_decode();
  if (options_.kv_context != 0 && options_.kv_context < context) {
    throw config::ConfigError(options_.kv_context_at, "tts.kv_context", std::to_string(options_.kv_context) + " tokens of KV cache cannot hold prompt + decode = " +
                                                          std::to_string(context));
  }
  const std::uint64_t kv_tokens = options_.kv_context != 0 ? options_.kv_context : context;
  const tts::NpuFootprint fp = tts::npu_footprint(m, r.batch, kv_tokens, options_.lm_head_on_npu, options_.q8_0_down);
  if (fp.total() > soc.npu.address_space_bytes) {
    // A KV cache the user sized (tts.kv_context) is what to shrink; else the model and its context.
    const bool sized = options_.kv_context != 0 && fp.total() - fp.kv_cache <= soc.npu.address_space_bytes;  // a smaller cache would fit
    throw config::ConfigError(sized ? options_.kv_context_at : kCli, sized ? "tts.kv_context" : "--model",
                              m.id + " at batch " + std::to_string(r.batch) + " and " + std::to_string(kv_tokens) +
                                  " tokens needs " + std::to_string(fp.total()) + " B in the NPU's address space (weights " +
                                  std::to_string(fp.layer_weights) + ", KV caches " + std::to_string(fp.kv_cache) +
                                  (options_.lm_head_on_npu ? ", lm_head and logits " + std::to_string(fp.lm_head + fp.logits) : std::string()) +
                                  "), more than npu.address_space = " + std::to_string(soc.npu.address_space_bytes) + " B");
  }
  const Placement npu{kernels::Unit::kNpu, runtime::Precision::kW4A16, 1};
  const Placement cpu_head{kernels::Unit::kCpu, runtime::Precision::kW4A16, options_.cpu_threads};
  const Placement cpu_float{kernels::Unit::kCpu, runtime::Precision::kFp32, options_.cpu_threads};
  const bool head_on_npu = options_.lm_head_on_npu;
  SequentialPlanBuilder b(
      [=](const model::GraphOp& g) {
        if (g.op.name == "lm_head") return head_on_npu ? npu : cpu_head;
        if (g.op.name == "value_head") return cpu_float;
        return npu;
      },
      [](const model::GraphOp&) { return std::string(); });  // custom kernels: no graph call
  runtime::Plan plan;
  auto prefill = model::prefill_graph(m, {r.prompt, 0, r.batch, false, false}, false);
  if (options_.reward) {
    std::erase_if(prefill, [](const model::GraphOp& g) { return g.op.name == "lm_head"; });
    prefill.push_back({value_head_op(m, r.prompt * r.batch), model::Phase::kPrefill, static_cast<std::uint32_t>(m.layers), prefill.back().step});
    plan.prefill_end = b.append(plan, prefill);
  } else if (measured_) {
    build_prefill_decode(plan, b, m, prefill, r, active_);
    std::uint64_t rows = 0;
    for (const auto n : active_) rows += n;
    plan.decode_rows = rows;
  } else {
    build_prefill_decode(plan, b, m, prefill, r);
  }
  const runtime::NpuKernelChoice kernels{true, runtime::W4A16Kernel::kCustom, options_.dequant, options_.q8_0_down, options_.prefetch_weights, options_.exp};
  for (auto& j : plan.jobs) {
    if (j.unit == kernels::Unit::kNpu) j.npu_kernels = kernels;
  }
  plan.info["role"] = options_.reward ? "reward" : "policy";
  plan.info["dequant"] = kernels::dequant_layout_name(options_.dequant);
  plan.info["exp"] = tts::exp_option_name(options_.exp);
  plan.info["lm_head_unit"] = head_on_npu ? "npu" : "cpu";
  plan.info["cpu_threads"] = options_.cpu_threads;
  plan.info["weights"] = options_.q8_0_down ? "q4_0, down_proj q8_0" : "q4_0";
  plan.info["kv_tokens_per_sample"] = kv_tokens;
  plan.info["npu_footprint_bytes"] = fp.json();
  plan.info["npu_address_space_bytes"] = soc.npu.address_space_bytes;
  plan.info["tcm_exp_lut_bytes"] = options_.exp == kernels::ExpVariant::kLut ? kernels::LutExpTable::bytes() : 0;
  return plan;
}

void register_tts_npu(SystemRegistry& r) {
  r.add("tts-npu", [] { return std::make_unique<TtsNpuSystem>(); });
}

}  // namespace socsim::systems
