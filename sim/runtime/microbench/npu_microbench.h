#pragma once
// Microbenchmarks of the NPU: GEMMs on HMX (through a static graph, or as a bare kernel on
// operands already in TCM) and HVX, multi-head Q.K^T graphs, DRAM streaming by DMA or HVX, and
// static-graph preparation of a whole model.
#include <nlohmann/json.hpp>

#include "sim/runtime/microbench/microbench.h"

namespace socsim::runtime {

nlohmann::ordered_json npu_matmul(const MicrobenchRequest& r);
nlohmann::ordered_json npu_qk(const MicrobenchRequest& r);
nlohmann::ordered_json npu_read(const MicrobenchRequest& r);
nlohmann::ordered_json npu_graph_build(const MicrobenchRequest& r);

}  // namespace socsim::runtime
