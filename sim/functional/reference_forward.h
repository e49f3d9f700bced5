#pragma once
// The FP32 reference: the textbook forward pass over each whole sequence at once (causal
// attention over all its tokens, no chunks, no KV cache, no plan), with the same weights and
// tokens as the system's run. Written to be obviously right rather than fast: norms, RoPE,
// attention and activations are plain loops here (double where it costs nothing; attention's
// scores are summed for all keys of a query side by side, each still one chain over the head
// dimension), only the matmuls go through gemm_f32 (a 0.5B model's matmuls in plain loops would
// take minutes).
// It runs layer by layer in step with PlanForward so both share each layer's weights.
#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/tensor/tensor.h"
#include "sim/functional/forward_shape.h"
#include "sim/functional/weight_source.h"
#include "sim/model/model_config.h"

namespace socsim::functional {

// For tests: while one is alive, the reference's attention runs its baseline x86-64 build even on
// a host with AVX2 (the two builds must give the same bits; reference_forward.cpp).
class ScopedBaselineReferenceAttention {
 public:
  ScopedBaselineReferenceAttention();
  ~ScopedBaselineReferenceAttention();
  ScopedBaselineReferenceAttention(const ScopedBaselineReferenceAttention&) = delete;
  ScopedBaselineReferenceAttention& operator=(const ScopedBaselineReferenceAttention&) = delete;

 private:
  bool previous_;
};

class ReferenceForward {
 public:
  ReferenceForward(const model::ModelConfig& model, const ForwardShape& shape, const std::vector<std::int32_t>& ids,
                   const WeightSource& weights);

  void run_layer(const LayerWeights& w);
  // Called in run_layer with the layer's Q [sequences * tokens x heads * head_dim] and K
  // [sequences * tokens x kv_heads * head_dim] after RoPE (shadowAttn's scale calibration reads
  // them there, scale_calibration.h).
  using QkObserver = std::function<void(const kernels::Tensor& q, const kernels::Tensor& k)>;
  void set_qk_observer(QkObserver observer) { qk_observer_ = std::move(observer); }
  // Called in run_layer with the input of each matmul group, named by its first matmul (q_proj,
  // o_proj, gate_proj or fc1, down_proj or fc2): [sequences * tokens x its input width] (llm.npu's
  // outlier calibration reads them, systems/llm_npu/outlier_calibration.h).
  using GroupInputObserver = std::function<void(const char* group, const kernels::Tensor& x)>;
  void set_group_input_observer(GroupInputObserver observer) { group_observer_ = std::move(observer); }
  // Final-normed hidden states at the head positions: F32 [positions x hidden], head group by
  // head group, one row per sequence in each (forward_shape.h).
  kernels::Tensor final_hidden(const NormWeights& final_norm) const;

 private:
  model::ModelConfig model_;
  ForwardShape shape_;
  kernels::Tensor x_;  // residual stream [sequences * tokens x hidden]
  QkObserver qk_observer_;
  GroupInputObserver group_observer_;
};

}  // namespace socsim::functional
