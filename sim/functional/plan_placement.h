#pragma once
// What the system's plan says about each op, for the functional forward: the unit and precision
// of the job that runs it, looked up by (phase, step, layer, op name). Keying by step and layer
// as well as by name costs nothing and covers systems whose placement varies between prefill
// chunks, decode steps or layers (hetero-layer, llm.npu's per-chunk graphs), not only the
// baselines, whose placement depends on the phase alone. Also the prefill chunking: the rows of
// every chunk as the plan cuts the prompt (padding included: the functional forward ignores the
// padding rows, which a static graph computes and throws away).
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "sim/model/graph_builder.h"
#include "sim/runtime/job.h"

namespace socsim::functional {

struct OpPlacement {
  kernels::Unit unit = kernels::Unit::kCpu;
  runtime::Precision precision = runtime::Precision::kFp32;
  runtime::OutlierHandling outliers = runtime::OutlierHandling::kMinMax;  // per-tensor W8A8 only
  std::uint32_t outlier_channels = 0;
  runtime::NpuKernelChoice npu_kernels;  // NPU W4A16 weight layout and FP16 attention exp

  bool operator==(const OpPlacement&) const = default;
};

class PlanPlacement {
 public:
  explicit PlanPlacement(const runtime::Plan& plan);

  // Throws std::logic_error naming the op when the plan does not run it.
  OpPlacement at(model::Phase phase, std::uint64_t step, std::uint32_t layer, const std::string& op) const;
  bool has(model::Phase phase, std::uint64_t step, std::uint32_t layer, const std::string& op) const {
    return ops_.count(Key{phase, step, layer, op}) != 0;
  }
  // The op's shape as planned (e.g. the head's rows).
  const model::OpDesc& op(model::Phase phase, std::uint64_t step, std::uint32_t layer, const std::string& name) const;
  // Rows per sequence of each prefill chunk, in order (from layer 0's attention), padding included.
  const std::vector<std::uint64_t>& prefill_chunk_rows() const { return chunk_rows_; }

 private:
  using Key = std::tuple<model::Phase, std::uint64_t, std::uint32_t, std::string>;
  struct Entry {
    OpPlacement placement;
    model::OpDesc op;
  };
  const Entry& find(model::Phase phase, std::uint64_t step, std::uint32_t layer, const std::string& op) const;
  std::map<Key, Entry> ops_;
  std::vector<std::uint64_t> chunk_rows_;
};

}  // namespace socsim::functional
