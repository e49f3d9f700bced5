#include "sim/runtime/microbench/microbench_result.h"
#include "sim/runtime/watchdog_report.h"

namespace socsim::runtime {

nlohmann::ordered_json microbench_header(const MicrobenchRequest& r, Tick latency) {
  nlohmann::ordered_json j;
  j["soc"] = r.soc_id;
  j["op"] = r.op;
  j["unit"] = r.unit;
  if (!r.engine.empty()) j["engine"] = r.engine;
  if (r.op == "matmul" || r.op == "qk") {
    j["dtype"] = hw::dtype_name(r.dtype);
    j["m"] = r.m, j["k"] = r.k, j["n"] = r.n;
    if (r.op == "qk") j["heads"] = r.heads, j["graph_io"] = r.client_io ? "client" : "shared";
    j["operands"] = r.operands == hw::OperandHome::kTcm ? "tcm" : "ddr";
  }
  // A CPU kernel's threads depend on the SoC when --threads is left out (4, or every core of a
  // smaller CPU): said either way.
  if (r.unit == "cpu") {
    j["threads"] = cpu_threads(r);
  } else if (r.threads) {
    j["threads"] = r.threads;
  }
  if (r.bytes) j["bytes"] = r.bytes;
  j["latency_ms"] = to_ms(latency);
  j["latency_us"] = to_us(latency);
  return j;
}

nlohmann::ordered_json unit_breakdown(hw::Soc& soc) {
  const Tick now = soc.sim().now();
  auto& npu = soc.npu();
  auto& dram = soc.dram();
  nlohmann::ordered_json u;
  u["npu"] = {{"busy_ms", to_ms(npu.busy().busy(now))},
              {"hmx_busy_ms", to_ms(npu.hmx_busy().busy(now))},
              {"hvx_busy_ms", to_ms(npu.hvx_busy().busy(now))},
              {"dma_busy_ms", to_ms(npu.dma_busy().busy(now))},
              {"dma_bytes", npu.dma_bytes()}};
  u["gpu"] = {{"busy_ms", to_ms(soc.gpu().busy().busy(now))}, {"kernels", soc.gpu().kernels()}};
  u["dram"] = {{"busy_ms", to_ms(dram.busy().busy(now))},
               {"bytes", dram.total_bytes()},
               {"avg_gbps", now == 0 ? 0.0 : static_cast<double>(dram.total_bytes()) / to_seconds(now) / 1e9},
               {"peak_gbps", dram.bandwidth().max() / 1e9}};
  return u;
}

nlohmann::ordered_json time_on_soc(const MicrobenchRequest& r, const std::function<Task<>(hw::Soc&)>& body,
                                   const char* rate_key, double work) {
  Simulator sim;
  hw::Soc soc(sim, r.soc, nullptr);
  sim.spawn(body(soc), "microbench." + r.op);
  runtime::check_run_finished(sim.run(), sim, soc, nullptr);
  auto j = microbench_header(r, sim.now());
  if (rate_key) j[rate_key] = work / to_seconds(sim.now()) / 1e9;
  j["units"] = unit_breakdown(soc);
  return j;
}

}  // namespace socsim::runtime
