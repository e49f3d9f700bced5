#include "sim/functional/forward_shape.h"

#include "sim/runtime/workload/portable_rng.h"

namespace socsim::functional {

std::vector<std::int32_t> draw_tokens(const ForwardShape& shape, std::uint64_t vocab, std::uint64_t seed) {
  // A stream of its own (the weights use the seed through a different mix).
  runtime::PortableRng rng(seed ^ 0x746F6B656E730000ULL);
  std::vector<std::int32_t> ids(shape.sequences * shape.tokens());
  for (auto& id : ids) id = static_cast<std::int32_t>(rng.below(vocab));
  return ids;
}

}  // namespace socsim::functional
