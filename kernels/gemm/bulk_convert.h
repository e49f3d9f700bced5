#pragma once
// Bulk element conversions for the GEMM packers and epilogues. GCC 12 does not vectorize
// _Float16 <-> float conversions, and without F16C every scalar conversion is a libgcc call, so
// converting element by element would cost more than the arithmetic it feeds. These run F16C/AVX2
// code when the host has it (checked at run time; the library itself targets baseline x86-64) and
// plain loops otherwise. All conversions to half round to nearest even, as static_cast does.
#include <cstddef>
#include <cstdint>

#include "kernels/tensor/half.h"

namespace socsim::kernels {

void widen(const half* src, float* dst, std::size_t n);
void widen(const std::int8_t* src, float* dst, std::size_t n);
void narrow(const float* src, half* dst, std::size_t n);
// data[i] = float(half(data[i])): the value an FP16 unit would hold after an FP16 operation.
void round_through_half(float* data, std::size_t n);

}  // namespace socsim::kernels
