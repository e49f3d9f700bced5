#include "sim/runtime/microbench/microbench.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <utility>

#include "sim/config/config_error.h"
#include "sim/hw/hardware_limit_error.h"
#include "sim/runtime/microbench/gpu_cpu_microbench.h"
#include "sim/runtime/microbench/kernel_microbench.h"
#include "sim/runtime/microbench/npu_microbench.h"

namespace socsim::runtime {

namespace {
const config::SourceLocation kCli{"command line", 0, 0};

void require_shape(const MicrobenchRequest& r) {
  if (r.m == 0) throw config::ConfigError(kCli, "--m", "is required and must be >= 1");
  if (r.k == 0) throw config::ConfigError(kCli, "--k", "is required and must be >= 1");
  if (r.n == 0) throw config::ConfigError(kCli, "--n", "is required and must be >= 1");
}

[[noreturn]] void unsupported(const MicrobenchRequest& r) {
  throw config::ConfigError(kCli, "--unit", "op '" + r.op + "' is not modelled on unit '" + r.unit + "'");
}

nlohmann::ordered_json dispatch(const MicrobenchRequest& r);

// The operands' bytes of the op (weights at their storage width, activations, outputs; a copy's
// source and destination), and the option of its largest size: what the device must hold. Zero
// for an op the unit does not run (dispatch says so by name).
struct Footprint {
  long double bytes = 0;
  const char* option = "--op";
};

Footprint footprint(const MicrobenchRequest& r) {
  const auto d = [](std::uint64_t v) { return static_cast<long double>(v); };
  const bool cpu = r.unit == "cpu", gpu = r.unit == "gpu", npu = r.unit == "npu";
  const long double act = static_cast<long double>(hw::activation_bytes(r.dtype));
  const long double weight = static_cast<long double>(hw::weight_bits(r.dtype)) / 8;
  const auto widest = [&](std::initializer_list<std::pair<std::uint64_t, const char*>> dims) {
    auto best = *dims.begin();
    for (const auto& x : dims) best = x.first > best.first ? x : best;
    return best.second;
  };
  if (r.op == "matmul" && (cpu || gpu || npu)) {
    return {d(r.heads) * ((d(r.m) * d(r.k) + d(r.m) * d(r.n)) * act + d(r.k) * d(r.n) * weight), widest({{r.m, "--m"}, {r.k, "--k"}, {r.n, "--n"}})};
  }
  if (r.op == "qk" && npu) return {d(r.heads) * (d(r.m) * d(r.k) + d(r.k) * d(r.n) + d(r.m) * d(r.n)) * act, widest({{r.m, "--m"}, {r.k, "--k"}, {r.n, "--n"}})};
  if (r.op == "attention" && (cpu || gpu || npu)) {
    // The CPU's and GPU's attention is FP32 whatever --dtype says.
    const long double elem = npu ? act : 4;
    const std::uint64_t kv_heads = r.kv_heads ? r.kv_heads : r.heads;
    return {(2 * d(r.heads) * d(r.q) * d(r.k) + 2 * d(kv_heads) * d(r.kv) * d(r.k)) * elem,
            widest({{r.kv, "--kv"}, {r.heads, "--heads"}, {r.k, "--k"}})};
  }
  if (r.op == "softmax" && (cpu || gpu || npu)) return {2 * d(r.m) * d(r.n) * (cpu ? 4 : act), widest({{r.m, "--m"}, {r.n, "--n"}})};
  if (r.op == "read" && (cpu || gpu || npu || r.unit == "gpu+npu")) return {d(r.bytes), "--bytes"};
  if (r.op == "copy" && gpu) return {2 * d(r.bytes), "--bytes"};
  return {};
}

// A microbench of operands the phone cannot hold is no measurement: refused as `run` refuses a
// model past dram.capacity (a CPU matmul of 4 TB of weights timed at 16 GFLOP/s, a 100 TB read).
// On the NPU, past its session's mapping limit too, as its matmul is (FlashAttention over 2 TB of
// K/V ran 34 s). Both are hardware limits: run_microbench names them at the SoC file's line.
void check_device_memory(const MicrobenchRequest& r) {
  const Footprint f = footprint(r);
  const long double capacity = static_cast<long double>(r.soc.dram.capacity_bytes);
  constexpr long double kGiB = 1024.0L * 1024 * 1024;
  const bool npu = r.unit == "npu";
  // The NPU's matmul checks its own mapping first (npu_microbench.cpp): its session limit is the
  // tighter bound, with the weights at their layout's width.
  if (f.bytes > capacity && !(npu && r.op == "matmul")) {
    throw hw::HardwareLimitError("dram.capacity", fmt::format("{} {}: the operands take {:.3g} GiB, more than the device's {:.2f} GiB of memory",
                                                              r.op, f.option, static_cast<double>(f.bytes / kGiB),
                                                              static_cast<double>(capacity / kGiB)));
  }
  if (npu && r.op != "read" && r.op != "matmul" && f.bytes > static_cast<long double>(r.soc.npu.session_limit_bytes)) {
    throw hw::HardwareLimitError("npu.session_limit", fmt::format("{} {}: the operands need {:.0f} B mapped on the NPU, more than its "
                                                                  "session limit of {} B",
                                                                  r.op, f.option, static_cast<double>(f.bytes), r.soc.npu.session_limit_bytes));
  }
}

}  // namespace

std::uint32_t cpu_threads(const MicrobenchRequest& r) {
  if (r.threads != 0) return r.threads;
  std::uint64_t cores = 0;
  for (const auto& c : r.soc.cpu.clusters) cores += c.cores;
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(cores, 1, 4));
}

nlohmann::ordered_json run_microbench(const MicrobenchRequest& r) {
  // The unit models reject impossible work (operands that cannot fit TCM, buffers beyond the
  // NPU's address space): for a microbench that is bad input, named as such (exit 2).
  try {
    return dispatch(r);
  } catch (hw::HardwareLimitError& e) {
    // Named at the SoC file's line of the key that limits it (or --set), when known.
    hw::locate_limit(e, r.soc);
    if (!e.location()) throw config::ConfigError(kCli, r.op == "graph-build" ? "--model" : "--op", e.what());
    throw config::ConfigError(*e.location(), e.key(), e.message() + " (change it in the SoC file or with --set " + e.key() + "=...)");
  } catch (const std::invalid_argument& e) {
    throw config::ConfigError(kCli, r.op == "graph-build" ? "--model" : "--op", e.what());
  }
}

namespace {

nlohmann::ordered_json dispatch(const MicrobenchRequest& r) {
  // Before any NPU kernel is lowered: on a SoC without one its parameters are zeros (an HVX
  // attention or softmax divided by 0 contexts and died of SIGFPE).
  if ((r.unit == "npu" || r.unit == "gpu+npu") && !r.soc.has_npu) {
    throw config::ConfigError(kCli, "--unit", "this SoC (" + r.soc.name + ") has no NPU (no `npu:` section in its file): choose --unit cpu or gpu");
  }
  if (r.op == "matmul" || r.op == "qk") require_shape(r);
  if ((r.op == "read" || r.op == "copy") && r.bytes == 0) throw config::ConfigError(kCli, "--bytes", "is required and must be >= 1");
  if (r.op == "qk" && r.heads == 0) throw config::ConfigError(kCli, "--heads", "must be >= 1");
  // Each head is simulated (qk ran a loop per head: 10^12 heads ran for ever), and a model has a
  // few hundred at most.
  if (r.heads > 65536) throw config::ConfigError(kCli, "--heads", "must be at most 65536, got " + std::to_string(r.heads));
  // Products of the shape are counted in 64 bits (bytes, multiply-adds, score elements): past
  // 10^18 they would wrap into a small, wrong result (CPU attention of 2^32 x 2^32 took "380 ms").
  // The NPU's graph paths check their own sizes first (session limit, TCM) and name those keys;
  // its softmax has none (2^62 rows timed as 0 ms).
  const auto d = [](std::uint64_t v) { return static_cast<double>(v); };
  const double work = r.op == "attention"                ? d(r.heads) * d(r.q) * d(r.kv) * d(r.k)
                      : r.op == "softmax"                ? d(r.heads) * d(r.m) * d(r.n)
                      : r.op == "matmul" || r.op == "qk" ? d(r.heads) * d(r.m) * d(r.k) * d(r.n)
                                                         : 0.0;
  if (work > 1e18 && (r.unit != "npu" || r.op == "qk" || r.op == "softmax")) {
    throw config::ConfigError(kCli, r.op == "attention" ? "--kv" : "--m",
                              fmt::format("the shape asks for {:.3g} multiply-adds (or elements), more than the 10^18 socsim counts in 64 bits", work));
  }
  check_device_memory(r);
  if (!r.engine.empty() && (r.unit == "cpu" || r.unit == "gpu")) {
    throw config::ConfigError(kCli, "--engine", "chooses among the NPU's engines (hmx | hvx | dma); the " + r.unit + " has one path");
  }
  if (r.unit == "npu" && r.threads > r.soc.npu.hvx.contexts) {
    // Software threads beyond the HVX contexts would share them: say so rather than time it.
    throw config::ConfigError(kCli, "--threads",
                              std::to_string(r.threads) + " HVX threads, but the NPU has " + std::to_string(r.soc.npu.hvx.contexts) +
                                  " HVX contexts (npu.hvx.contexts)");
  }
  if (r.unit == "cpu") {
    std::uint64_t cores = 0;
    for (const auto& c : r.soc.cpu.clusters) cores += c.cores;
    if (r.threads > cores) {
      throw config::ConfigError(kCli, "--threads", fmt::format("{} CPU threads, but the CPU has {} cores (its clusters' cores)", r.threads, cores));
    }
  }
  if (r.op == "softmax" && r.unit != "gpu+npu") return kernel_softmax(r);
  if (r.op == "attention" && r.unit != "gpu+npu") return kernel_attention(r);
  if (r.unit == "npu") {
    if (r.op == "matmul") return npu_matmul(r);
    if (r.op == "qk") return npu_qk(r);
    if (r.op == "read") return npu_read(r);
    if (r.op == "graph-build") return npu_graph_build(r);
  } else if (r.unit == "gpu") {
    if (r.op == "matmul") return gpu_matmul(r);
    if (r.op == "read") return gpu_read(r);
    if (r.op == "copy") return gpu_copy(r);
  } else if (r.unit == "cpu") {
    if (r.op == "matmul") return cpu_matmul(r);
    if (r.op == "read") return cpu_read(r);
  } else if (r.unit == "gpu+npu") {
    if (r.op == "read") return gpu_npu_read(r);
  }
  unsupported(r);
}

}  // namespace
}  // namespace socsim::runtime
