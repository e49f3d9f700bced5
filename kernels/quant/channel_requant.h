#pragma once
// Channel-wise linear requantization of an INT8 KV chunk to 4 or 2 bits with bit packing (LLMS
// §3.2: "on top of the model's built-in INT8 KV quantization, extra channel-wise linear
// quantization to 4 and 2 bits"; sub-byte values packed into INT8 storage with parallel shifts).
//
// A chunk is [tokens, channels] INT8 (one layer's K or V for chunk_tokens tokens, heads x head_dim
// channels). Per channel c over the chunk's tokens: lo = min, hi = max, scale = (hi - lo) /
// (2^bits - 1) (1 when hi = lo), q = round((x - lo) / scale) in [0, 2^bits - 1]. Packing: 8/bits
// consecutive channels of a token share a byte, channel j at bits (j mod k) x bits, so a row of
// C channels takes ceil(C x bits / 8) bytes. Dequantization back to INT8: round(lo + q x scale),
// error at most scale / 2 (+ the rounding to an integer).
//
// `lower` (CPU, per element): requantize 2 ops (min, max) + 4 ops (subtract, multiply, round,
// clamp) + 1 op (shift-or into the packed byte), reads 1 B twice, writes bits/8 B; dequantize
// 3 ops (shift-mask, multiply-add, round), reads bits/8 B, writes 1 B.
#include <cstdint>
#include <vector>

#include "kernels/lowering/work.h"

namespace socsim::kernels {

struct RequantizedChunk {
  int bits = 8;
  std::int64_t tokens = 0, channels = 0;
  std::vector<float> lo, scale;      // per channel
  std::vector<std::uint8_t> packed;  // tokens x ceil(channels x bits / 8)
  std::int64_t row_bytes() const { return (channels * bits + 7) / 8; }
};

// bits in {2, 4}; x holds tokens x channels values, row major. Throws std::invalid_argument.
RequantizedChunk requantize_channelwise(const std::vector<std::int8_t>& x, std::int64_t tokens, std::int64_t channels, int bits);
std::vector<std::int8_t> dequantize_channelwise(const RequantizedChunk& q);

CpuWork lower_requantize_cpu(std::int64_t elements, int bits, std::uint32_t threads);
CpuWork lower_dequantize_channelwise_cpu(std::int64_t elements, int bits, std::uint32_t threads);

}  // namespace socsim::kernels
