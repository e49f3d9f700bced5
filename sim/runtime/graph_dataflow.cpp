#include "sim/runtime/graph_dataflow.h"

#include <algorithm>
#include <memory>

#include "sim/core/sync.h"
#include "sim/runtime/npu_alone_replay.h"
#include "sim/runtime/work_runner.h"

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

std::vector<GraphNode> graph_nodes(const std::vector<model::OpDesc>& ops, const std::vector<const NpuOpWork*>& lowered) {
  const auto inputs = model::op_inputs(ops);
  std::vector<GraphNode> nodes;
  nodes.reserve(ops.size());
  std::int32_t last_matrix = -1, last_vector = -1;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    GraphNode n;
    n.blocks = lowered[i]->gemm_blocks;
    const bool matrix = n.blocks > 0;
    n.input = inputs[i];
    std::int32_t& queue = matrix ? last_matrix : last_vector;
    n.after = queue;
    queue = static_cast<std::int32_t>(i);
    if (!matrix && n.input >= 0) {
      const auto in = static_cast<std::size_t>(n.input);
      n.streams = nodes[in].blocks > 0 && streams_behind(ops[in], *lowered[in], ops[i], lowered[i]->work);
      nodes[in].streamed = nodes[in].streamed || n.streams;
    }
    nodes.push_back(n);
  }
  return nodes;
}

namespace {

struct Flow {
  const std::vector<GraphNode>& nodes;
  std::vector<std::unique_ptr<Trigger>> done;
  std::vector<std::unique_ptr<Progress>> produced;  // output blocks computed, per node
};

Task<> run_node(hw::HexagonNpu& npu, const NpuOpWork& work, std::size_t node, Flow& g, std::vector<Tick>& node_time) {
  const GraphNode& self = g.nodes[node];
  if (self.after >= 0) co_await g.done[static_cast<std::size_t>(self.after)]->wait();
  if (self.input >= 0 && !self.streams) co_await g.done[static_cast<std::size_t>(self.input)]->wait();
  const Tick start = npu.sim().now();
  if (self.streams) {
    // Block j of the producer's output is consumed once the producer has computed it: the work
    // split evenly over its blocks, each part waiting for its block. The blocks already computed
    // when a part starts go together (one step for all of them: the same work, fewer events).
    const auto input = static_cast<std::size_t>(self.input);
    const std::uint64_t blocks = g.nodes[input].blocks;
    for (std::uint64_t j = 0; j < blocks;) {
      co_await g.produced[input]->reach(j + 1);
      const std::uint64_t take = std::min(blocks, g.produced[input]->value()) - j;
      for (kernels::NpuStep part : work.work.steps) {
        // Blocks j .. j+take-1: each has bytes/blocks, the first bytes%blocks one more.
        const std::uint64_t rem = part.bytes % blocks;
        const std::uint64_t extra = j >= rem ? 0 : std::min(j + take, rem) - j;
        part.packets = part.packets / static_cast<double>(blocks) * static_cast<double>(take);
        part.bytes = part.bytes / blocks * take + extra;
        co_await run_npu_step(npu, part);
      }
      j += take;
    }
  } else {
    // Block by block progress only for a consumer: without one a GEMM merges its last steps too.
    // (Chosen in its own statement: GCC miscompiles a conditional's temporaries inside co_await.)
    Progress* outputs = nullptr;
    if (self.streamed) outputs = g.produced[node].get();
    co_await run_npu_work(npu, work.work, outputs, &work.signature);
  }
  node_time[node] = npu.sim().now() - start;
  g.done[node]->fire();
}

Task<> run_nodes(hw::HexagonNpu& npu, const std::vector<GraphNode>& nodes, const std::vector<const NpuOpWork*>& lowered,
                 std::vector<Tick>& node_time) {
  Flow g{nodes, {}, {}};
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    g.done.push_back(std::make_unique<Trigger>(npu.sim()));
    g.produced.push_back(std::make_unique<Progress>(npu.sim()));
  }
  node_time.assign(nodes.size(), 0);
  TaskList tasks;
  for (std::size_t i = 0; i < nodes.size(); ++i) tasks.push_back(run_node(npu, *lowered[i], i, g, node_time));
  co_await when_all(npu.sim(), std::move(tasks));
}

hw::NpuRunMemo::Key graph_signature(const std::vector<GraphNode>& nodes, const std::vector<const NpuOpWork*>& lowered) {
  SignatureBuilder s;
  s.add(std::uint64_t{0x6772617068});  // "graph": never the key of a single work
  s.add(static_cast<std::uint64_t>(nodes.size()));
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const GraphNode& n = nodes[i];
    s.add(static_cast<std::uint64_t>(static_cast<std::int64_t>(n.input))), s.add(static_cast<std::uint64_t>(static_cast<std::int64_t>(n.after)));
    s.add(n.blocks), s.add(static_cast<std::uint64_t>(n.streams) | static_cast<std::uint64_t>(n.streamed) << 1);
    s.add(lowered[i]->signature);
  }
  return s.key();
}

}  // namespace

Task<> run_graph_dataflow(hw::HexagonNpu& npu, const std::vector<GraphNode>& nodes, const std::vector<const NpuOpWork*>& lowered,
                          std::vector<Tick>& node_time) {
  if (may_replay(npu)) {
    const auto key = graph_signature(nodes, lowered);
    auto rec = alone_replay(npu, key, [&nodes, &lowered](hw::HexagonNpu& scratch, std::vector<Tick>& times) {
      return run_nodes(scratch, nodes, lowered, times);
    });
    if (rec) {
      node_time = rec->node_time;
      co_await replay(npu, std::move(rec));
      co_return;
    }
  }
  co_await run_nodes(npu, nodes, lowered, node_time);
}

}  // namespace socsim::runtime
