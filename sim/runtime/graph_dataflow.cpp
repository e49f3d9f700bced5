#include "sim/runtime/graph_dataflow.h"

#include <algorithm>

namespace socsim::runtime {

bool streams_behind(const model::OpDesc& producer, const NpuOpWork& produced, const model::OpDesc& consumer, const kernels::NpuWork& w) {
  using model::OpKind;
  if (producer.kind != OpKind::kMatMul || produced.work.steps.size() != 1) return false;
  if (consumer.kind != OpKind::kDequantize && consumer.kind != OpKind::kBiasAdd && consumer.kind != OpKind::kActivation &&
      consumer.kind != OpKind::kElementwise) {
    return false;
  }
  if (w.steps.empty() || w.pipelined()) return false;
  return std::all_of(w.steps.begin(), w.steps.end(), [](const kernels::NpuStep& st) {
    return st.kind == kernels::NpuStep::Kind::kHvx || st.kind == kernels::NpuStep::Kind::kHvxStream;
  });
}

}  // namespace socsim::runtime
