#include "sim/runtime/op_lowering.h"

#include <algorithm>
#include <cmath>

namespace socsim::runtime {

using model::OpKind;

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::kFp32: return "fp32";
    case Precision::kFp16: return "fp16";
    case Precision::kW8A8: return "w8a8";
    case Precision::kW8A8Group: return "w8a8-group";
    case Precision::kW4A16: return "w4a16";
  }
  return "?";
}

namespace {

// Per-group INT8 uses groups of 128 along K with one FP16 scale each (AWQ/K-Quant-like).
constexpr std::uint64_t kGroup = 128;

double weight_bits_of(Precision p) {
  switch (p) {
    case Precision::kFp32: return 32;
    case Precision::kFp16: return 16;
    case Precision::kW8A8: return 8;
    case Precision::kW8A8Group: return 8 + 16.0 / kGroup;
    case Precision::kW4A16: return 4.5;
  }
  return 0;
}

double activation_bytes_of(Precision p) {
  switch (p) {
    case Precision::kFp32: return 4;
    case Precision::kFp16:
    case Precision::kW4A16: return 2;
    case Precision::kW8A8:
    case Precision::kW8A8Group: return 1;
  }
  return 0;
}

bool is_attention(const model::OpDesc& op) { return op.kind == OpKind::kAttnScores || op.kind == OpKind::kAttnContext; }
bool is_gemm(const model::OpDesc& op) { return op.kind == OpKind::kMatMul || is_attention(op); }

// Share of an attention op a dynamic kernel computes: query i of a chunk starting at p0 sees
// p0 + i + 1 keys, not all n.
double causal_fraction(const model::OpDesc& op) {
  if (!is_attention(op) || op.m <= 1) return 1.0;
  const std::uint64_t keys = op.kind == OpKind::kAttnScores ? op.n : op.k;
  const double m = static_cast<double>(op.m), p0 = static_cast<double>(keys - op.m);
  return (m * p0 + m * (m + 1) / 2) / (m * static_cast<double>(keys));
}

hw::DType compute_dtype(Precision p) {
  switch (p) {
    case Precision::kFp32: return hw::DType::kFp32;
    case Precision::kFp16: return hw::DType::kFp16;
    case Precision::kW8A8:
    case Precision::kW8A8Group: return hw::DType::kInt8;
    case Precision::kW4A16: return hw::DType::kW4A16;
  }
  return hw::DType::kFp32;
}

// HVX packets per 128-byte vector of output for elementwise kinds (a few ALU ops each; the
// exponential-based ones evaluate a polynomial), plus one conversion packet per float result
// on qfloat NPUs.
double hvx_packets_per_vector(OpKind k, bool qfloat) {
  double p = 1;
  switch (k) {
    case OpKind::kNorm: p = 4; break;
    case OpKind::kRope: p = 4; break;
    case OpKind::kSoftmax: p = 8; break;
    case OpKind::kActivation: p = 8; break;
    case OpKind::kQuantize:
    case OpKind::kDequantize: p = 2; break;
    default: p = 1;
  }
  return p + (qfloat ? 1 : 0);
}

}  // namespace

double precision_weight_bits(Precision p) { return weight_bits_of(p); }
double precision_activation_bytes(Precision p) { return activation_bytes_of(p); }

std::uint32_t npu_graph_nodes(const model::OpDesc& op, Precision p) {
  if (op.kind == OpKind::kMatMul && p == Precision::kW8A8Group && op.m >= 2) {
    const std::uint64_t groups = (op.k + kGroup - 1) / kGroup;
    return static_cast<std::uint32_t>(4 * groups - 1);
  }
  return 1;
}

OpTraffic op_traffic(const model::OpDesc& op, const model::ModelConfig& m, Precision p) {
  OpTraffic t;
  const double act = activation_bytes_of(p);
  t.weight_bytes = static_cast<double>(op.weight_params) * weight_bits_of(p) / 8.0;
  if (op.kind == OpKind::kMatMul) {
    t.activation_bytes = static_cast<double>(op.m * (op.k + op.n)) * act;
  } else if (is_attention(op)) {
    // K (scores) or V (context) of every sequence, FP16 in the cache; queries/probabilities in,
    // results out at the op's precision.
    const std::uint64_t keys = op.kind == OpKind::kAttnScores ? op.n : op.k;
    const std::uint64_t sequences = std::max<std::uint64_t>(1, op.batch / m.heads);
    t.kv_bytes = static_cast<double>(sequences * m.kv_heads * keys * m.head_dim) * 2.0;
    t.activation_bytes = static_cast<double>(op.batch * op.m * (op.k + op.n)) * act;
  } else {
    t.activation_bytes = 2.0 * static_cast<double>(op.elements) * act;
  }
  return t;
}

hw::CpuTask lower_cpu(const model::OpDesc& op, const model::ModelConfig& m, Precision p) {
  const OpTraffic t = op_traffic(op, m, p);
  hw::CpuTask task;
  task.name = op.name;
  task.ops = model::op_flops(op) * causal_fraction(op);
  task.dtype = op.kind == OpKind::kMatMul ? compute_dtype(p) : hw::DType::kFp32;
  task.dram_bytes = static_cast<std::uint64_t>(t.weight_bytes + t.activation_bytes + t.kv_bytes);
  // Row blocks apply to GEMM kernels; a single-row GEMV takes the vector path.
  task.rows = op.kind == OpKind::kMatMul && op.m > 1 ? op.m : 0;
  return task;
}

hw::GpuKernel lower_gpu(const model::OpDesc& op, const model::ModelConfig& m, Precision p) {
  const OpTraffic t = op_traffic(op, m, p);
  hw::GpuKernel k;
  k.name = op.name;
  k.flops = model::op_flops(op) * causal_fraction(op);
  k.dtype = p == Precision::kFp32 ? hw::DType::kFp32 : hw::DType::kFp16;
  k.dram_bytes = static_cast<std::uint64_t>(t.weight_bytes + t.activation_bytes + t.kv_bytes);
  k.rows = is_gemm(op) && op.m > 1 ? op.m : 0;
  k.streaming = !is_gemm(op) || op.m <= 1;  // GEMV and elementwise kernels stream
  return k;
}

std::vector<kernels::NpuStep> lower_npu(const model::OpDesc& op, const model::ModelConfig& m, Precision p,
                                        const hw::NpuSpec& npu) {
  std::vector<kernels::NpuStep> steps;
  const double lanes = npu.hvx.vector_bytes / 2.0;  // FP16 lanes per vector
  const std::uint32_t threads = npu.hvx.contexts;
  if (op.kind == OpKind::kMatMul) {
    if (op.m < 2) {
      // GEMV: HMX would pad one row to a 32-row tile and stage weights tile by tile; the runtime
      // streams the weights through L2 on all HVX threads instead (HeteroLLM 3.3: 40-45 GB/s).
      const double macs = static_cast<double>(op.m * op.k * op.n);
      const double per_vector = p == Precision::kW8A8 || p == Precision::kW8A8Group ? npu.hvx.fp16_mac_packets / 2
                                                                                      : npu.hvx.fp16_mac_packets;
      const OpTraffic t = op_traffic(op, m, p);
      // Quantized weights are dequantized as they stream: Q4_0 ~4 packets per 64 weights (+1 for
      // qfloat), per-group INT8 one scale multiply per 64.
      const double q = npu.hvx.qfloat ? 1 : 0;
      const double dequant = p == Precision::kW4A16 ? 4 + q : p == Precision::kW8A8Group ? 1 + q : 0;
      const double packets = std::ceil(macs / lanes) * per_vector +
                             std::ceil(static_cast<double>(op.weight_params) / lanes) * dequant;
      steps.push_back(kernels::NpuStep::hvx_stream(op.name, static_cast<std::uint64_t>(t.weight_bytes), packets, threads));
      return steps;
    }
    switch (p) {
      case Precision::kW8A8:
        steps.push_back(kernels::NpuStep::hmx_gemm(op.name, {op.m, op.k, op.n, hw::DType::kInt8}));
        break;
      case Precision::kW8A8Group: {
        // The NPU cannot apply a scale per K-group inside a GEMM: one sub-GEMM per group with an
        // INT32 result, dequantized and summed in float on HVX (llm.npu 2.3: 8.1-10.7x cost).
        for (std::uint64_t k0 = 0; k0 < op.k; k0 += kGroup) {
          const std::uint64_t g = std::min(kGroup, op.k - k0);
          steps.push_back(kernels::NpuStep::hmx_gemm(op.name + " group", {op.m, g, op.n, hw::DType::kInt8}));
          steps.push_back(kernels::NpuStep::hvx(op.name + " group reduce",
                                                std::ceil(static_cast<double>(op.m * op.n) / lanes) * (2 + (npu.hvx.qfloat ? 1 : 0)),
                                                threads));
        }
        break;
      }
      case Precision::kW4A16:
        // Q4_0 weights dequantized to FP16 on HVX (unpack, subtract 8, scale: ~4 packets per 64
        // weights, +1 for qfloat conversion), then an FP16 HMX GEMM.
        steps.push_back(kernels::NpuStep::hvx(op.name + " dequant",
                                              std::ceil(static_cast<double>(op.weight_params) / lanes) * (4 + (npu.hvx.qfloat ? 1 : 0)),
                                              threads));
        [[fallthrough]];
      default:
        steps.push_back(kernels::NpuStep::hmx_gemm(op.name, {op.m, op.k, op.n, hw::DType::kFp16}));
    }
    return steps;
  }
  if (is_attention(op)) {
    // One HMX GEMM per KV head and sequence: the query heads sharing a KV head (GQA) are stacked
    // as rows against one staged copy of K or V (run-time data, staged like weights).
    const hw::DType d = p == Precision::kW8A8 || p == Precision::kW8A8Group ? hw::DType::kInt8 : hw::DType::kFp16;
    const std::uint64_t group = m.heads / m.kv_heads;
    const std::uint64_t gemms = op.batch / group;
    for (std::uint64_t b = 0; b < gemms; ++b) steps.push_back(kernels::NpuStep::hmx_gemm(op.name, {op.m * group, op.k, op.n, d}));
    return steps;
  }
  steps.push_back(kernels::NpuStep::hvx(
      op.name, std::ceil(static_cast<double>(op.elements) / lanes) * hvx_packets_per_vector(op.kind, npu.hvx.qfloat), threads));
  return steps;
}

}  // namespace socsim::runtime
