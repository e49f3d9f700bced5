#pragma once
// What a kernel throws when the data it is given leaves the range its arithmetic can represent (a
// non-finite activation, a scale that overflowed or underflowed): not a bug in the caller but a
// property of the data, e.g. weights too large for INT8/FP16 numerics. A std::invalid_argument,
// so callers that only check arguments still catch it; functional mode tells it apart and reports
// the layer and the likely cause (functional_run.cpp) instead of an internal error.
#include <stdexcept>
#include <string>

namespace socsim::kernels {

class NonFiniteData : public std::invalid_argument {
 public:
  explicit NonFiniteData(const std::string& what) : std::invalid_argument(what) {}
};

// What the user is told to change, wherever NonFiniteData becomes an error message.
inline constexpr const char* kNonFiniteDataHint =
    "the activations leave the range the numerics represent (check the weights' values; with synthetic weights, a smaller "
    "functional.outlier_scale)";

}  // namespace socsim::kernels
