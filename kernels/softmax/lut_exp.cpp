#include "kernels/softmax/lut_exp.h"

#include <cmath>

namespace socsim::kernels {

LutExpTable::LutExpTable() : table_(kEntries) {
  for (std::size_t i = 0; i < kEntries; ++i) {
    // Index i is the FP16 code of -|x|: set the sign bit to recover the input. -inf maps to 0 and
    // the NaN codes to NaN through std::exp itself.
    const half x = half_from_bits(static_cast<std::uint16_t>(i | 0x8000u));
    // One rounding, double -> FP16 (GCC converts directly, round-to-nearest-even); going through
    // float would round twice.
    table_[i] = static_cast<half>(std::exp(static_cast<double>(x)));
  }
}

}  // namespace socsim::kernels
