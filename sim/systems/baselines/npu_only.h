#pragma once
#include <vector>

#include "sim/systems/system.h"

namespace socsim::systems {

// npu-only: every op of prefill and decode in static NPU graphs (FP16 math on HMX, Q4_0 weights
// dequantized on HVX, float ops on HVX). Static graphs have fixed shapes, so a prompt length is
// handled by `npu.shape_policy`:
//   online-prepare: build and optimize graphs for the exact length at request time;
//   padding:        run the prepared graph of the next standard length (wasted rows);
//   pipe:           split the prompt into standard lengths run back to back as chunks.
// Standard lengths: `npu.standard_lengths` (default 32, 64, ..., 4096).
class NpuOnly final : public System {
 public:
  enum class ShapePolicy { kOnlinePrepare, kPadding, kPipe };
  std::string id() const override { return "npu-only"; }
  void configure(config::Section& options, const hw::SocSpec& soc, const model::ModelConfig& model) override;
  runtime::Plan plan(const hw::SocSpec& soc, const model::ModelConfig& model, const RequestShape& request) override;
  double weight_bits() const override { return 4.5; }
  bool decode_windows() const override { return true; }

 private:
  ShapePolicy policy_ = ShapePolicy::kPadding;
  std::vector<std::uint64_t> standard_;
};

}  // namespace socsim::systems
