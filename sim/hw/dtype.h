#pragma once
// Element types the units compute with. W4A16 = 4-bit weights (Q4_0, 4.5 bits/weight with scales)
// dequantized to FP16 activations' precision.
#include <optional>
#include <string>
#include <string_view>

namespace socsim::hw {

enum class DType { kInt8, kFp16, kFp32, kW4A16 };

std::string_view dtype_name(DType d);
std::optional<DType> parse_dtype(std::string_view s);  // "int8" | "fp16" | "fp32" | "w4a16"
// Storage bits per weight element (Q4_0: 4 bits + one FP16 scale per 32 = 4.5).
double weight_bits(DType d);
// Bytes of one activation element.
double activation_bytes(DType d);

}  // namespace socsim::hw
