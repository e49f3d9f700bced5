#include "sim/runtime/microbench/npu_microbench.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>

#include <fmt/format.h>

#include "kernels/attention/int8_attention.h"
#include "sim/config/config_error.h"
#include "sim/hw/npu/graph_costs.h"
#include "sim/hw/npu/hmx_gemm.h"
#include "sim/hw/soc.h"
#include "sim/runtime/microbench/microbench_result.h"
#include "sim/runtime/work_runner.h"
#include "kernels/gemm/gemm_lower.h"
#include "kernels/gemm/gemm_lower_npu.h"
#include "kernels/gemm/graph_activation_layout.h"

namespace socsim::runtime {

namespace {

const config::SourceLocation kCli{"command line", 0, 0};

void run_to_end(Simulator& sim) {
  if (sim.run() != RunResult::kIdle) throw std::logic_error("microbench did not run to completion");
}

nlohmann::ordered_json plan_json(const hw::GemmPlan& p) {
  return {{"strategy", hw::strategy_name(p.strategy)}, {"tiles_m", p.mt},        {"tiles_k", p.kt},
          {"tiles_n", p.nt},                          {"blocks", p.blocks.size()}, {"tile_ops", p.total.tile_ops},
          {"weight_loads", p.total.weight_loads},    {"dma_transfers", p.total.stage_transfers},
          {"stage_bytes", p.total.stage_bytes},      {"writeback_bytes", p.total.writeback_bytes}};
}

// The activation width of `--layout` (hw::GemmShape::width): packed 0, HxW W, equivalent the
// width llm.npu's offline profiling would pick. ConfigError naming --layout when it makes no sense.
std::uint64_t activation_width(const MicrobenchRequest& r) {
  if (r.layout == "packed") return 0;
  if (r.operands != hw::OperandHome::kDram || r.dtype == hw::DType::kW4A16 || (r.engine != "" && r.engine != "hmx")) {
    throw config::ConfigError(kCli, "--layout", "applies to a matmul through the vendor graph (--engine hmx, --operands ddr, int8 or fp16)");
  }
  if (r.layout == "equivalent") {
    return kernels::graph_activation_width(r.soc.npu, {r.m, r.k, r.n, r.dtype, 0}, r.operands, kernels::GraphActivationLayout::kEquivalentShape);
  }
  std::uint64_t h = 0, w = 0;
  const auto x = r.layout.find('x');
  const auto number = [](std::string_view t, std::uint64_t& v) {
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    return ec == std::errc{} && end == t.data() + t.size() && v > 0;
  };
  const std::string_view l = r.layout;
  if (x == std::string::npos || !number(l.substr(0, x), h) || !number(l.substr(x + 1), w)) {
    throw config::ConfigError(kCli, "--layout", "expected packed, equivalent or HxW with positive integers (e.g. 32x32), got '" + r.layout + "'");
  }
  if (r.m % w != 0 || r.m / w != h) {
    throw config::ConfigError(kCli, "--layout", "height x width of " + r.layout + " must equal --m (" + std::to_string(r.m) + " rows)");
  }
  return w;
}

// A GEMM on HMX. Through the vendor runtime (operands in DRAM) it is a one-op static graph: the
// call overhead, then the pipelined tile schedule. With operands already in TCM it is the bare
// kernel the TTS paper measures.
// The plan is taken by value: the coroutine outlives the caller's scope.
Task<> hmx_matmul_graph(hw::HexagonNpu& npu, hw::GemmPlan plan, std::uint32_t ops, bool via_graph) {
  if (via_graph) co_await npu.graph_call(ops, "graph_execute");
  co_await hw::run_hmx_gemm(npu, plan, "matmul");
}

// HVX GEMM: each output vector of `lanes` FP16 values takes k multiply-accumulates, each costing
// fp16_mac_packets packets (loads, multiply, accumulate and qfloat conversions of the inner loop).
Task<> hvx_matmul(hw::HexagonNpu& npu, double packets, std::uint32_t threads) { co_await npu.hvx(packets, threads, "hvx_matmul"); }

}  // namespace

nlohmann::ordered_json npu_matmul(const MicrobenchRequest& r) {
  Simulator sim;
  hw::Soc soc(sim, r.soc, nullptr);
  auto& npu = soc.npu();
  const std::string engine = r.engine.empty() ? "hmx" : r.engine;
  nlohmann::ordered_json plan_info;
  if (engine == "hmx" && r.dtype != hw::DType::kW4A16) {
    // Before any plan (a plan, or the layout search's many, of a GEMM that cannot be mapped would
    // take the host's memory): the operands unpadded, a lower bound on what the NPU must map.
    const long double elem = r.dtype == hw::DType::kInt8 ? 1 : 2;
    const long double m = static_cast<long double>(r.m), k = static_cast<long double>(r.k), n = static_cast<long double>(r.n);
    const long double bytes = (m * k + k * n + m * n) * elem;
    if (bytes > static_cast<long double>(r.soc.npu.session_limit_bytes)) {
      npu.check_mappable(bytes >= 1.8e19L ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(bytes), "this matmul");
    }
  }
  const std::uint64_t width = activation_width(r);  // checks --layout for every engine
  if (r.dtype == hw::DType::kW4A16) {
    // TTS's W4A16 kernel (a custom kernel, no graph call): quantized weights through TCM,
    // dequantized on HVX, multiplied on HMX (kernels/gemm/gemm_lower_npu.h).
    if (engine != "hmx") throw config::ConfigError(kCli, "--engine", "W4A16 matmul on the NPU dequantizes on HVX and multiplies on HMX (--engine hmx)");
    if (r.operands != hw::OperandHome::kDram) throw config::ConfigError(kCli, "--operands", "the W4A16 kernel streams its weights from DRAM (--operands ddr)");
    kernels::W4A16NpuOptions options;
    options.dequant = r.switches.w4a16_layout;
    options.prefetch_weights = true;  // TTS's kernel double-buffers its weights
    const kernels::GemmDims d{static_cast<std::int64_t>(r.m), static_cast<std::int64_t>(r.k), static_cast<std::int64_t>(r.n)};
    auto work = kernels::lower_gemm_w4a16_npu(d, r.switches.w4a16_format, r.soc.npu, options);
    const std::uint64_t weight_bytes = kernels::block_weight_bytes(d.k, d.n, r.switches.w4a16_format);
    npu.check_mappable(weight_bytes + (r.m * r.k + r.m * r.n) * 2, "this matmul");
    plan_info = {{"kernel", "w4a16"},
                 {"format", kernels::block_format_name(r.switches.w4a16_format)},
                 {"layout", kernels::dequant_layout_name(options.dequant)},
                 {"steps", work.steps.size()},
                 {"weight_bytes", weight_bytes}};
    sim.spawn(run_work(soc, std::move(work)), "microbench.w4a16");
  } else if (engine == "hmx") {
    const auto plan = hw::plan_hmx_gemm(r.soc.npu, {r.m, r.k, r.n, r.dtype, width}, r.operands);
    npu.check_mappable(plan.mt * plan.kt * plan.tile_bytes + plan.kt * plan.nt * plan.tile_bytes +
                           plan.mt * plan.nt * plan.output_tile_bytes,
                       "this matmul");
    plan_info = plan_json(plan);
    if (width > 0) {
      plan_info["activation_layout"] = std::to_string(r.m / width) + "x" + std::to_string(width);
      plan_info["stored_rows"] = hw::stored_rows(r.soc.npu, {r.m, r.k, r.n, r.dtype, width});
    }
    sim.spawn(hmx_matmul_graph(npu, plan, 1, r.operands == hw::OperandHome::kDram), "microbench.matmul");
  } else if (engine == "hvx") {
    if (r.dtype != hw::DType::kFp16) throw config::ConfigError(kCli, "--dtype", "the HVX matmul model is FP16 only");
    if (r.operands != hw::OperandHome::kTcm) throw config::ConfigError(kCli, "--operands", "the HVX matmul benchmark runs on operands in TCM (--operands tcm)");
    // Its operands sit in TCM: A, B and C in FP16 must fit it, as HMX's plan requires (a double:
    // no overflow for any shape).
    const double operand_bytes = 2.0 * (static_cast<double>(r.m) * static_cast<double>(r.k) + static_cast<double>(r.k) * static_cast<double>(r.n) +
                                        static_cast<double>(r.m) * static_cast<double>(r.n));
    if (operand_bytes > static_cast<double>(r.soc.npu.tcm_bytes)) {
      throw config::ConfigError(kCli, "--operands", fmt::format("the {}x{}x{} FP16 matmul's operands take {:.0f} B, more than the {} B of TCM (npu.tcm)",
                                                                r.m, r.k, r.n, operand_bytes, r.soc.npu.tcm_bytes));
    }
    const std::uint32_t threads = r.threads ? r.threads : 1;
    const double lanes = r.soc.npu.hvx.vector_bytes / 2.0;
    const double packets = std::ceil(static_cast<double>(r.m * r.n) / lanes) * static_cast<double>(r.k) * r.soc.npu.hvx.fp16_mac_packets;
    sim.spawn(hvx_matmul(npu, packets, threads), "microbench.hvx_matmul");
  } else {
    throw config::ConfigError(kCli, "--engine", "matmul on the NPU runs on hmx or hvx, not '" + engine + "'");
  }
  run_to_end(sim);
  auto j = microbench_header(r, sim.now());
  const double flops = 2.0 * static_cast<double>(r.m) * static_cast<double>(r.k) * static_cast<double>(r.n);
  j["gflops"] = flops / to_seconds(sim.now()) / 1e9;
  if (!plan_info.is_null()) j["plan"] = plan_info;
  j["units"] = unit_breakdown(soc);
  return j;
}

nlohmann::ordered_json npu_qk(const MicrobenchRequest& r) {
  // H heads of Q[m x k] . K[n x k]^T as one static graph: per head the graph slices Q and K,
  // transposes K into the weight layout, and multiplies (kQkGraphNodesPerHead nodes); K is
  // run-time data, so its tiles are staged like weights. Fusing heads shares the graph call (and
  // its client buffers' fixed synchronization) but not the per-head nodes or bytes.
  Simulator sim;
  hw::Soc soc(sim, r.soc, nullptr);
  auto& npu = soc.npu();
  // INT8 scores leave raw as INT32, as the system's estimation writes them (int8_attention.h).
  const std::uint32_t out_bytes = r.dtype == hw::DType::kInt8 ? kernels::kQkScoreBytes : 0;
  const auto plan = hw::plan_hmx_gemm(r.soc.npu, {r.m, r.k, r.n, r.dtype, 0, out_bytes}, hw::OperandHome::kDram);
  const std::uint64_t io_bytes = r.client_io ? kernels::qk_estimate_io_bytes(r.heads, r.m, r.k, r.n, r.dtype != hw::DType::kInt8) : 0;
  auto body = [](hw::HexagonNpu& n, hw::GemmPlan p, std::uint64_t heads, std::uint64_t client_io_bytes) -> Task<> {
    co_await n.graph_call(static_cast<std::uint32_t>(heads) * kernels::kQkGraphNodesPerHead, "graph_execute", client_io_bytes);
    for (std::uint64_t h = 0; h < heads; ++h) co_await hw::run_hmx_gemm(n, p, "qk head " + std::to_string(h));
  };
  sim.spawn(body(npu, plan, r.heads, io_bytes), "microbench.qk");
  run_to_end(sim);
  auto j = microbench_header(r, sim.now());
  const double flops = 2.0 * static_cast<double>(r.heads * r.m * r.k * r.n);
  j["gflops"] = flops / to_seconds(sim.now()) / 1e9;
  j["plan"] = plan_json(plan);
  j["units"] = unit_breakdown(soc);
  return j;
}

nlohmann::ordered_json npu_read(const MicrobenchRequest& r) {
  Simulator sim;
  hw::Soc soc(sim, r.soc, nullptr);
  auto& npu = soc.npu();
  if (r.engine == "dma") {
    // Large regular blocks: one transfer per MiB.
    const std::uint64_t transfers = (r.bytes + (1 << 20) - 1) >> 20;
    sim.spawn(npu.dma(r.bytes, transfers, "read"), "microbench.read");
  } else if (r.engine == "hvx") {
    sim.spawn(npu.hvx_stream(r.bytes, r.threads ? r.threads : 1, "read"), "microbench.read");
  } else if (r.engine.empty()) {
    // The vendor runtime streams (decode GEMV weights) on all HVX threads through L2.
    sim.spawn(npu.hvx_stream(r.bytes, r.threads ? r.threads : r.soc.npu.hvx.contexts, "read"), "microbench.read");
  } else {
    throw config::ConfigError(kCli, "--engine", "read on the NPU uses dma or hvx (or no --engine for the runtime's path)");
  }
  run_to_end(sim);
  auto j = microbench_header(r, sim.now());
  j["gbps"] = static_cast<double>(r.bytes) / to_seconds(sim.now()) / 1e9;
  j["units"] = unit_breakdown(soc);
  return j;
}

nlohmann::ordered_json npu_graph_build(const MicrobenchRequest& r) {
  if (!r.model) throw config::ConfigError(kCli, "--model", "graph-build needs --model");
  if (r.prompt == 0) throw config::ConfigError(kCli, "--prompt", "graph-build needs --prompt (the graph's sequence length)");
  // Beyond the window no graph of the model exists, and the graph's sizes (tokens x widths) would
  // leave 64 bits: 2^64-1 tokens wrapped to a build faster than one token's.
  if (r.prompt > r.model->max_context) {
    throw config::ConfigError(kCli, "--prompt", std::to_string(r.prompt) + " tokens exceed " + r.model->id + "'s context of " +
                                                    std::to_string(r.model->max_context));
  }
  const auto& m = *r.model;
  std::vector<model::OpDesc> ops;
  for (std::uint64_t l = 0; l < m.layers; ++l) {
    auto layer = model::decoder_layer_ops(m, {r.prompt, r.prompt}, true);
    ops.insert(ops.end(), layer.begin(), layer.end());
  }
  auto head = model::head_ops(m, r.prompt, true);
  ops.insert(ops.end(), head.begin(), head.end());
  const auto size = hw::graph_size(ops);
  std::uint64_t weight_bytes = 0;
  for (const auto& op : ops) weight_bytes += op.weight_params;  // INT8: one byte each
  if (weight_bytes > r.soc.npu.address_space_bytes) {
    throw config::ConfigError(kCli, "--model", m.id + "'s INT8 weights (" + std::to_string(weight_bytes) +
                                                   " B) exceed the NPU's address space of " +
                                                   std::to_string(r.soc.npu.address_space_bytes) + " B (npu.address_space)");
  }
  const std::uint64_t sessions = (weight_bytes + r.soc.npu.session_limit_bytes - 1) / r.soc.npu.session_limit_bytes;
  const Tick build = hw::graph_build_time(r.soc.npu.graph, size);
  const Tick optimize = hw::graph_optimize_time(r.soc.npu.graph, size);
  MicrobenchRequest echo = r;
  auto j = microbench_header(echo, build + optimize);
  j["model"] = m.id;
  j["prompt"] = r.prompt;
  j["graph_ops"] = size.ops;
  j["tensor_mib"] = static_cast<double>(size.tensor_bytes) / (1024.0 * 1024.0);
  j["weight_bytes"] = weight_bytes;
  j["sessions"] = sessions;  // NPU sessions needed to map the weights (npu.session_limit each)
  j["build_ms"] = to_ms(build);
  j["optimize_ms"] = to_ms(optimize);
  return j;
}

}  // namespace socsim::runtime
