#include "kernels/elementwise/rope.h"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "kernels/elementwise/op_costs.h"
#include "kernels/softmax/softmax_lower.h"

namespace socsim::kernels {

std::uint64_t rotary_dims(std::uint64_t head_dim, double fraction) {
  if (!(fraction >= 0 && fraction <= 1)) throw std::invalid_argument("rotary fraction must be in [0, 1]");
  const auto r = static_cast<std::uint64_t>(std::floor(static_cast<double>(head_dim) * fraction + 1e-9));
  return r & ~std::uint64_t{1};
}

void apply_rope(Tensor& x, const RopeParams& p, std::uint64_t p0) {
  if (x.rank() != 3 || x.type() != ElemType::kF32) throw std::invalid_argument("RoPE expects an F32 [tokens, heads, head_dim] tensor");
  if (!(p.theta > 0)) throw std::invalid_argument("RoPE theta must be > 0");
  const auto tokens = static_cast<std::uint64_t>(x.dim(0)), heads = static_cast<std::uint64_t>(x.dim(1));
  const auto d = static_cast<std::uint64_t>(x.dim(2));
  const std::uint64_t r = rotary_dims(d, p.rotary_fraction), h = r / 2;
  if (h == 0) return;
  const std::vector<double> inv_freq = model::rope_inverse_frequencies(p.theta, r, p.scaling);
  std::vector<float> cs(h), sn(h);
  auto data = x.data<float>();
  for (std::uint64_t t = 0; t < tokens; ++t) {
    const double pos = static_cast<double>(p0 + t);
    for (std::uint64_t i = 0; i < h; ++i) {
      cs[i] = static_cast<float>(std::cos(pos * inv_freq[i]));
      sn[i] = static_cast<float>(std::sin(pos * inv_freq[i]));
    }
    for (std::uint64_t hd = 0; hd < heads; ++hd) {
      float* v = data.data() + (t * heads + hd) * d;
      for (std::uint64_t i = 0; i < h; ++i) {
        const float a = v[i], b = v[i + h];
        v[i] = a * cs[i] - b * sn[i];
        v[i + h] = b * cs[i] + a * sn[i];
      }
    }
  }
}

namespace {

struct RopeCounts {
  double ops = 0;
  std::uint64_t bytes = 0;
};

RopeCounts counts(const RopeShape& s, const RopeParams& p, std::uint64_t elem_bytes) {
  const std::uint64_t r = rotary_dims(s.head_dim, p.rotary_fraction);
  const std::uint64_t rotated = s.tokens * s.heads * r;
  return {3.0 * static_cast<double>(rotated), rotated * elem_bytes * 2 + s.tokens * r * elem_bytes};
}

}  // namespace

CpuWork lower_rope_cpu(const RopeShape& s, const RopeParams& p, std::uint32_t threads) {
  const auto c = counts(s, p, 4);
  hw::CpuTask t;
  t.name = "rope";
  t.ops = c.ops;
  t.dtype = hw::DType::kFp32;
  t.dram_bytes = c.bytes;
  return CpuWork{{t}, std::max<std::uint32_t>(1, threads)};
}

GpuWork lower_rope_gpu(const RopeShape& s, const RopeParams& p, hw::DType dtype) {
  const auto c = counts(s, p, dtype == hw::DType::kFp32 ? 4 : 2);
  hw::GpuKernel k;
  k.name = "rope";
  k.flops = c.ops;
  k.dtype = dtype;
  k.dram_bytes = c.bytes;
  k.streaming = true;  // one pass over the data, memory-bound (gpu_kernel.h)
  return GpuWork{{k}};
}

NpuWork lower_rope_npu(const hw::NpuSpec& npu, const RopeShape& s, const RopeParams& p, std::uint32_t threads) {
  const HvxCost c{npu.hvx};
  const std::uint64_t h = rotary_dims(s.head_dim, p.rotary_fraction) / 2;
  const double per_head = static_cast<double>(c.vectors(h, 2)) * 6 * c.fop();
  NpuWork w;
  w.steps.push_back(NpuStep::hvx("rope", static_cast<double>(s.tokens * s.heads) * per_head,
                                 hvx_threads(npu, threads, s.tokens * s.heads)));
  return w;
}

}  // namespace socsim::kernels
