#pragma once
// The prefill of llm.npu as a DAG of subgraphs (llm.npu 3.2 and 3.4).
//
// The prompt is cut into ceil(P / c) chunks of c tokens; the NPU runs static graphs built for c
// rows (the last chunk is padded), the float unit computes only real rows. Each chunk runs the
// same sequence of subgraphs: walking the W8A8 form of every layer (sim/model/layer_ops.h), ops
// of NPU-placed matmul groups (a matmul and its dequantize) go to the NPU lane, everything else
// (norms, quantize, RoPE, attention, activation, residuals, and CPU-placed matmuls) to the float
// lane; consecutive ops of one lane form one subgraph. Per decoder layer this gives four NPU
// subgraphs (q/k/v, o, gate/up, down) between five float ones, the last float one of a layer
// fused with the first of the next (norm -> quantize). Subgraph j of chunk i is G[i][j]:
//   intra-chunk:  G[i][j] needs G[i][j-1]
//   cross-chunk:  the subgraph holding attention also needs G[0..i-1][j]: the K and V of every
//                 earlier chunk in the cache. The paper writes G[0..i][j-1] (the projections);
//                 here RoPE of K and the cache append sit in the attention subgraph itself (the
//                 paper does not say which unit runs its custom RoPE/KVCache ops), so the earlier
//                 chunks' attention subgraphs are what must have run.
// Static NPU subgraphs are one graph per layer position and chunk length, shared by every chunk
// (named llm-npu/c<c>/L<l>/<first op>), built in the preparation stage.
//
// Shadow outliers (outlier_plan.h): for an NPU subgraph of a kept layer, a float-lane job runs
// the outlier matmul beside it (it needs the subgraph before the NPU one, which extracted the
// outliers) and the float subgraph after it waits for it too and starts with outlier_merge (none
// of them where the chunk has no outlier channel: modelled outlier_channels 0, or none measured).
//
// In order (ooe = false): every main subgraph also waits for the one before it in program order
// (chunk by chunk), so the NPU and the float unit alternate; a shadow job still runs beside its
// NPU subgraph, which is the point of the shadow.
#include <cstdint>
#include <vector>

#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"
#include "sim/runtime/data_driven.h"
#include "sim/runtime/job.h"
#include "sim/systems/llm_npu/llm_npu_options.h"
#include "sim/systems/llm_npu/npu_placement.h"

namespace socsim::systems::llm_npu {

struct PrefillDag {
  std::uint32_t last = 0;                // the job producing the first token's logits
  std::uint64_t chunks = 0;
  std::uint64_t subgraphs_per_chunk = 0;  // main subgraphs (shadows not counted)
  std::uint64_t npu_subgraphs_per_chunk = 0;
  std::uint64_t shadow_jobs = 0;
  std::vector<std::string> npu_graphs;   // distinct static graphs (shared by the chunks)
};

// Appends the prefill of one request (batch sequences of `prompt` tokens) to `plan`. Shadow jobs
// take functional mode's measured outliers where `data` holds them (outlier_plan.h: shadow_work);
// throws std::logic_error when `data` names a shadow job the plan does not have.
PrefillDag build_prefill_dag(runtime::Plan& plan, const Options& o, const model::ModelConfig& m, const NpuPlacement& place,
                             const std::vector<bool>& shadow_kept, std::uint64_t prompt, std::uint64_t batch,
                             const runtime::DataDriven* data = nullptr);

}  // namespace socsim::systems::llm_npu
