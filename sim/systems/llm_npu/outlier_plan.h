#pragma once
// Which layers keep llm.npu's shadow outlier path, and what one shadow matmul costs.
//
// Layer pruning (llm.npu 3.3 b): a layer's outlier importance is max|outlier| / s, profiled
// offline; the paper reports that layers near the input and the output matter most and drops the
// outliers of the least important `outlier_prune` share. socsim has no corpus to profile, so the
// importance table stands in with that shape: importance(l) = max(1 / (l + 1), 1 / (L - l)), and
// the ceil((1 - prune) L) most important layers keep their shadow path (ties: lower index).
// Functional mode measures the importance instead (outlier_calibration.h, on the run's weights:
// runtime::DataDriven::layer_importance) and picks the layers from it the same way.
//
// A shadow matmul for a matmul group sharing one input [rows x k] with n outputs in all (q, k and v
// together): `outlier_channels` = c input channels hold outliers; their float activations
// [rows x c] times the matching weight rows [c x n], a float matmul {rows, c, n} on the float
// unit (2 rows c n flops; the rows are dequantized to float, so they are read at FP32 size).
// Rows of hot channels are resident (hot_hit of the outliers fall there); the others are read from
// storage for the chunk, ceil((1 - hot_hit) c) rows of n INT8 bytes, before the matmul. The partial
// sums [rows x n] are merged into the NPU's dequantized output by the next float subgraph (an
// elementwise add of rows x n, "outlier_merge"). A chunk with no outlier channel (modelled:
// outlier_channels 0; measured: none of its activations past the scale) has no shadow job and
// no merge: nothing is extracted, computed, read or added.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/model/layer_ops.h"
#include "sim/model/model_config.h"
#include "sim/runtime/data_driven.h"
#include "sim/systems/llm_npu/llm_npu_options.h"

namespace socsim::systems::llm_npu {

std::vector<double> layer_importance(std::uint64_t layers);
// true for the layers whose outliers are kept (shadow path): the ceil((1 - prune) L) largest of
// `importance` (one per layer), from layer_importance(layers) when none is measured.
std::vector<bool> shadow_layers(const std::vector<double>& importance, double prune);
std::vector<bool> shadow_layers(std::uint64_t layers, double prune);
// The kept layers of a plan: from the importance functional mode measured when `data` holds it for
// every layer of the model, else `modelled`.
std::vector<bool> planned_shadow_layers(const runtime::DataDriven* data, const std::vector<bool>& modelled, double prune);

// One shadow matmul's work: its outlier channels and the cold weight-row bytes it reads.
struct ShadowWork {
  std::uint64_t channels = 0;
  std::uint64_t cold_bytes = 0;
};
// The work of shadow job `name` (n outputs): as functional mode measured it where `data` holds
// the name (`*measured` = true), else as modelled (outlier_channels, cold_row_bytes).
ShadowWork shadow_work(const Options& o, const runtime::DataDriven* data, const std::string& name, std::uint64_t n, bool* measured);
model::OpDesc shadow_matmul(std::uint64_t rows, std::uint64_t channels, std::uint64_t n);
model::OpDesc outlier_merge(std::uint64_t rows, std::uint64_t n);
// The name of the shadow job of prefill chunk `chunk`, layer `layer`, for the NPU subgraph whose
// first matmul is `group` (functional mode finds it by this name to apply the measured outliers).
std::string shadow_job_name(std::uint64_t chunk, std::uint32_t layer, const std::string& group);
// Cold weight-row bytes one shadow matmul reads from storage.
std::uint64_t cold_row_bytes(const Options& o, std::uint64_t n);

// Bytes of weight rows kept resident for the hot channels of all kept layers (INT8 rows).
std::uint64_t hot_weight_bytes(const Options& o, const model::ModelConfig& m, const std::vector<bool>& kept);

}  // namespace socsim::systems::llm_npu
