#include "sim/hw/dtype.h"

namespace socsim::hw {

std::string_view dtype_name(DType d) {
  switch (d) {
    case DType::kInt8: return "int8";
    case DType::kFp16: return "fp16";
    case DType::kFp32: return "fp32";
    case DType::kW4A16: return "w4a16";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view s) {
  for (DType d : {DType::kInt8, DType::kFp16, DType::kFp32, DType::kW4A16}) {
    if (dtype_name(d) == s) return d;
  }
  return std::nullopt;
}

double weight_bits(DType d) {
  switch (d) {
    case DType::kInt8: return 8;
    case DType::kFp16: return 16;
    case DType::kFp32: return 32;
    case DType::kW4A16: return 4.5;
  }
  return 0;
}

double activation_bytes(DType d) {
  switch (d) {
    case DType::kInt8: return 1;
    case DType::kFp16: return 2;
    case DType::kFp32: return 4;
    case DType::kW4A16: return 2;
  }
  return 0;
}

}  // namespace socsim::hw
