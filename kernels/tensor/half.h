#pragma once
// IEEE binary16. GCC/Clang's _Float16 converts to and from float with round-to-nearest-even and
// does arithmetic by rounding each result to half, which is exactly what "FP16 as the hardware
// does it" needs; the alias keeps the rest of the code free of the compiler spelling.
#include <bit>
#include <cstdint>

namespace socsim::kernels {

#if defined(__FLT16_MAX__)
using half = _Float16;

inline std::uint16_t half_bits(half h) { return std::bit_cast<std::uint16_t>(h); }
inline half half_from_bits(std::uint16_t b) { return std::bit_cast<half>(b); }
inline half to_half(float f) { return static_cast<half>(f); }
inline float to_float(half h) { return static_cast<float>(h); }
// Widening is exact: every FP16 value is a float.
inline float float_from_half_bits(std::uint16_t b) { return to_float(half_from_bits(b)); }
#elif defined(SOCSIM_FUZZ_BUILD)
// Debian 12's clang 14 has no _Float16 on x86. The fuzz build (tests/fuzz) compiles only the
// input parsers, which need FP16 only to widen weights to float: __fp16, a storage-only type
// there, does that exactly. No FP16 arithmetic is available in that build, on purpose.
inline float float_from_half_bits(std::uint16_t b) {
  __fp16 h;
  static_assert(sizeof h == sizeof b);
  __builtin_memcpy(&h, &b, sizeof h);
  return h;
}
#else
#error "socsim's FP16 kernels need _Float16 (GCC 12+, or clang 15+ on x86)"
#endif

}  // namespace socsim::kernels
