#include "sim/hw/cpu/cpu_task.h"

#include <string>

#include "sim/core/time.h"

#include <cmath>
#include <stdexcept>

namespace socsim::hw {

double ops_per_cycle(const CpuClusterSpec& c, DType d) {
  switch (d) {
    case DType::kFp32: return c.fp32_flops_per_cycle;
    case DType::kFp16: return c.fp16_flops_per_cycle;
    case DType::kInt8:
    case DType::kW4A16: return c.int8_ops_per_cycle;
  }
  throw std::invalid_argument("unknown dtype");
}

double task_ops_per_cycle(const CpuClusterSpec& c, const CpuTask& t) {
  if (t.scalar) return 1.0;
  if (t.simd_uops_per_op > 0) {
    if (c.simd_pipes == 0) {
      throw std::invalid_argument("CPU task '" + t.name + "' is costed by its vector instruction mix: cluster '" + c.name +
                                  "' needs simd_pipes (cpu.clusters." + c.name + ".simd_pipes)");
    }
    const double uops = !c.dotprod && t.simd_uops_per_op_no_dotprod > 0 ? t.simd_uops_per_op_no_dotprod : t.simd_uops_per_op;
    return static_cast<double>(c.simd_pipes) / uops;
  }
  return ops_per_cycle(c, t.dtype);
}

double task_ops_per_second(const CpuClusterSpec& c, const CpuTask& t) {
  return static_cast<double>(c.clock_hz) * task_ops_per_cycle(c, t);
}

double core_ops_per_second(const CpuClusterSpec& c, DType d) {
  return static_cast<double>(c.clock_hz) * ops_per_cycle(c, d);
}

double padded_ops(const CpuTask& t, std::uint32_t gemm_tile_rows) { return padded_ops(t, t.ops, gemm_tile_rows); }

double padded_ops(const CpuTask& t, double ops, std::uint32_t gemm_tile_rows) {
  if (t.rows == 0 || gemm_tile_rows <= 1) return ops;
  const std::uint64_t blocks = (t.rows + gemm_tile_rows - 1) / gemm_tile_rows;
  const std::uint64_t padded = blocks * gemm_tile_rows;
  return ops * static_cast<double>(padded) / static_cast<double>(t.rows);
}

std::uint64_t compute_cycles_per_thread(double ops, double per_cycle, std::uint32_t threads) {
  if (!(ops >= 0) || !std::isfinite(ops)) throw std::invalid_argument("CPU task ops must be finite and >= 0");
  if (!(per_cycle > 0)) throw std::invalid_argument("CPU ops per cycle must be > 0");
  if (threads == 0) throw std::invalid_argument("CPU task needs at least one thread");
  const double exact = ops / (per_cycle * threads);
  const double cycles = std::ceil(exact - exact * 1e-12);
  // Past 64 bits the cast is undefined (a 2^24-cubed matmul reported 1.5 ms): the inputs ask for
  // a duration socsim cannot represent.
  if (cycles >= 18446744073709551616.0) {
    throw TimeOverflow("a CPU task of " + std::to_string(ops) + " operations takes more than 2^64 cycles");
  }
  return static_cast<std::uint64_t>(cycles);
}

}  // namespace socsim::hw
