#include "kernels/quant/channel_requant.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace socsim::kernels {

RequantizedChunk requantize_channelwise(const std::vector<std::int8_t>& x, std::int64_t tokens, std::int64_t channels, int bits) {
  if (bits != 2 && bits != 4) throw std::invalid_argument("requantize_channelwise: bits must be 2 or 4");
  if (tokens < 1 || channels < 1 || static_cast<std::int64_t>(x.size()) != tokens * channels) {
    throw std::invalid_argument("requantize_channelwise: x must hold tokens x channels values");
  }
  RequantizedChunk q;
  q.bits = bits;
  q.tokens = tokens;
  q.channels = channels;
  q.lo.assign(static_cast<std::size_t>(channels), 0);
  q.scale.assign(static_cast<std::size_t>(channels), 1);
  const int levels = (1 << bits) - 1;
  for (std::int64_t c = 0; c < channels; ++c) {
    std::int8_t lo = x[static_cast<std::size_t>(c)], hi = lo;
    for (std::int64_t t = 1; t < tokens; ++t) {
      const auto v = x[static_cast<std::size_t>(t * channels + c)];
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    q.lo[static_cast<std::size_t>(c)] = lo;
    if (hi > lo) q.scale[static_cast<std::size_t>(c)] = static_cast<float>(hi - lo) / static_cast<float>(levels);
  }
  const int per_byte = 8 / bits;
  q.packed.assign(static_cast<std::size_t>(tokens * q.row_bytes()), 0);
  for (std::int64_t t = 0; t < tokens; ++t) {
    for (std::int64_t c = 0; c < channels; ++c) {
      const auto i = static_cast<std::size_t>(c);
      const float v = (static_cast<float>(x[static_cast<std::size_t>(t * channels + c)]) - q.lo[i]) / q.scale[i];
      const auto code = static_cast<std::uint8_t>(std::clamp(static_cast<int>(std::lround(v)), 0, levels));
      q.packed[static_cast<std::size_t>(t * q.row_bytes() + c / per_byte)] |= static_cast<std::uint8_t>(code << ((c % per_byte) * bits));
    }
  }
  return q;
}

std::vector<std::int8_t> dequantize_channelwise(const RequantizedChunk& q) {
  const int per_byte = 8 / q.bits;
  const int mask = (1 << q.bits) - 1;
  std::vector<std::int8_t> x(static_cast<std::size_t>(q.tokens * q.channels));
  for (std::int64_t t = 0; t < q.tokens; ++t) {
    for (std::int64_t c = 0; c < q.channels; ++c) {
      const auto i = static_cast<std::size_t>(c);
      const int code = (q.packed[static_cast<std::size_t>(t * q.row_bytes() + c / per_byte)] >> ((c % per_byte) * q.bits)) & mask;
      const long v = std::lround(q.lo[i] + static_cast<float>(code) * q.scale[i]);
      x[static_cast<std::size_t>(t * q.channels + c)] = static_cast<std::int8_t>(std::clamp<long>(v, -128, 127));
    }
  }
  return x;
}

namespace {
hw::CpuTask task(const char* name, double ops_per_elem, std::int64_t e, std::uint64_t bytes) {
  if (e < 0) throw std::invalid_argument("element count must be >= 0");
  return {name, ops_per_elem * static_cast<double>(e), hw::DType::kInt8, bytes, 0};
}
}  // namespace

CpuWork lower_requantize_cpu(std::int64_t elements, int bits, std::uint32_t threads) {
  const auto e = static_cast<std::uint64_t>(std::max<std::int64_t>(0, elements));
  return {{task("kv_requantize", 7, elements, 2 * e + (e * static_cast<std::uint64_t>(bits) + 7) / 8)}, threads};
}

CpuWork lower_dequantize_channelwise_cpu(std::int64_t elements, int bits, std::uint32_t threads) {
  const auto e = static_cast<std::uint64_t>(std::max<std::int64_t>(0, elements));
  return {{task("kv_dequantize", 3, elements, e + (e * static_cast<std::uint64_t>(bits) + 7) / 8)}, threads};
}

}  // namespace socsim::kernels
