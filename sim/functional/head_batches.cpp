#include "sim/functional/head_batches.h"

#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "sim/functional/tensor_util.h"

namespace socsim::functional {

using kernels::Tensor;
using runtime::Precision;

namespace {

bool batchable(const HeadGroup& g) {
  return (row_independent(g.precision) && !g.activation_scale) || (g.precision == Precision::kW8A8 && g.activation_scale);
}

}  // namespace

HeadBatches::HeadBatches(const std::vector<HeadGroup>& groups, std::uint64_t sequences, std::uint64_t hidden, std::uint64_t max_rows)
    : groups_(groups), sequences_(sequences) {
  if (sequences == 0) throw std::invalid_argument("head batches of groups of no sequence");
  // A group of more than max_rows sequences (a batch past it) is a batch of its own: max_rows
  // bounds what batching adds, not a group (a batch of 257 ended in an internal error).
  const std::uint64_t B = sequences, h = hidden;
  for (std::size_t g = 0; g < groups.size();) {
    std::size_t e = g + 1;
    if (batchable(groups[g])) {
      while (e < groups.size() && groups[e].precision == groups[g].precision && batchable(groups[e]) && (e + 1 - g) * B <= max_rows) ++e;
    }
    Batch b{g, e - g, e - g == 1 ? groups[g].hidden : f32_matrix((e - g) * B, h), {}};
    for (std::size_t i = g; e - g > 1 && i < e; ++i) {
      std::memcpy(b.hidden.data<float>().data() + (i - g) * B * h, groups[i].hidden.data<float>().data(), B * h * sizeof(float));
      if (groups[i].precision == Precision::kW8A8) b.scales.push_back(*groups[i].activation_scale);
    }
    batches_.push_back(std::move(b));
    g = e;
  }
}

Tensor HeadBatches::logits(Linear& head, std::uint64_t cols) const {
  const std::uint64_t B = sequences_;
  Tensor sys = f32_matrix(groups_.size() * B, cols);
  for (const Batch& b : batches_) {
    const HeadGroup& g = groups_[b.first];
    const Tensor part = b.scales.empty() ? head.apply(b.hidden, g.precision, g.activation_scale)
                                         : head.apply_w8a8_row_blocks(b.hidden, static_cast<std::int64_t>(B), b.scales);
    std::memcpy(sys.data<float>().data() + b.first * B * cols, part.data<float>().data(), b.count * B * cols * sizeof(float));
  }
  return sys;
}

}  // namespace socsim::functional
