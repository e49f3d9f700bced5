#pragma once
// IEEE binary16. GCC/Clang's _Float16 converts to and from float with round-to-nearest-even and
// does arithmetic by rounding each result to half, which is exactly what "FP16 as the hardware
// does it" needs; the alias keeps the rest of the code free of the compiler spelling.
#include <bit>
#include <cstdint>

namespace socsim::kernels {

using half = _Float16;

inline std::uint16_t half_bits(half h) { return std::bit_cast<std::uint16_t>(h); }
inline half half_from_bits(std::uint16_t b) { return std::bit_cast<half>(b); }
inline half to_half(float f) { return static_cast<half>(f); }
inline float to_float(half h) { return static_cast<float>(h); }

}  // namespace socsim::kernels
