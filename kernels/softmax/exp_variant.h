#pragma once
// Which exp a softmax uses. The three differ in accuracy (tests/unit/kernels/softmax) and, more
// so, in cost per unit (softmax_lower.h): on HVX the polynomial is a chain of dependent packets
// while the LUT is one vgather per 64 values (TTS paper, section 5.2.1).
#include <optional>
#include <string_view>

namespace socsim::kernels {

enum class ExpVariant {
  kExact,  // FP32 exp (std::exp), the reference
  kPoly,   // FP16 degree-3 polynomial for 2^frac plus an exponent add (poly_exp2.h)
  kLut,    // FP16 table of exp over all non-positive FP16 inputs (lut_exp.h)
};

inline const char* exp_variant_name(ExpVariant v) {
  switch (v) {
    case ExpVariant::kExact: return "exact";
    case ExpVariant::kPoly: return "poly";
    case ExpVariant::kLut: return "lut";
  }
  return "?";
}

inline std::optional<ExpVariant> parse_exp_variant(std::string_view s) {
  if (s == "exact") return ExpVariant::kExact;
  if (s == "poly") return ExpVariant::kPoly;
  if (s == "lut") return ExpVariant::kLut;
  return std::nullopt;
}

}  // namespace socsim::kernels
