// `socsim microbench`: one operator on one unit, timed by the hardware models.
#include "sim/cli/program_options.h"
#include <fmt/format.h>
#include <iostream>
#include <set>
#include <sstream>

#include "sim/report/json_text.h"
#include "sim/cli/command.h"
#include "sim/cli/host_memory_option.h"
#include "sim/cli/input_paths.h"
#include "sim/cli/output_files.h"
#include "sim/core/host_memory.h"
#include "sim/core/time.h"
#include "sim/config/config_error.h"
#include "sim/config/longest_time.h"
#include "sim/config/config_tree.h"
#include "sim/runtime/microbench/microbench.h"

namespace po = boost::program_options;

namespace socsim::cli {

namespace {

const config::SourceLocation kCli{"command line", 0, 0};

// The options each benchmark reads. One given to a benchmark that does not read it is refused
// (exit 2): a silently ignored --dtype or --exp would let a user believe they measured it.
std::set<std::string> options_read(const std::string& op, const std::string& unit, const std::string& engine) {
  std::set<std::string> s = {"help", "soc", "op", "unit", "engine", "set", "json", "max-host-memory"};
  const bool npu = unit == "npu", cpu = unit == "cpu";
  if (op == "matmul") {
    s.insert({"dtype", "m", "k", "n"});
    if (npu) s.insert({"operands", "layout"});
    if ((npu && engine == "hvx") || cpu) s.insert("threads");  // HMX has no threads to choose
  } else if (op == "qk") {
    s.insert({"dtype", "m", "k", "n", "heads", "graph-io"});
  } else if (op == "read") {
    s.insert("bytes");
    if ((npu && engine != "dma") || cpu) s.insert("threads");  // the DMA engine has none
  } else if (op == "copy") {
    s.insert("bytes");
  } else if (op == "graph-build") {
    s.insert({"model", "prompt"});
  } else if (op == "softmax") {
    s.insert({"m", "n"});
    if (!cpu) s.insert("exp");  // the CPU's softmax is exact FP32
    if (npu || cpu) s.insert("threads");
  } else if (op == "attention") {
    s.insert({"heads", "kv-heads", "q", "kv", "k"});
    // The CPU's and GPU's attention is FP32 with an exact exp; the NPU has several kernels.
    if (npu) s.insert({"dtype", "exp", "operands", "threads", "graph-io"});
    if (cpu) s.insert("threads");
  }
  return s;
}

// FlashAttention on HMX: the one attention kernel with tiles (kernel.flash.*) and grouped K/V heads.
bool runs_flash_attention(const runtime::MicrobenchRequest& r) {
  return r.op == "attention" && r.unit == "npu" && (r.engine.empty() || r.engine == "hmx") && r.dtype == hw::DType::kFp16;
}

// kernel.* switches reach one kernel each: given to another benchmark they would change nothing.
void refuse_switches_elsewhere(const config::Section& root, const runtime::MicrobenchRequest& r) {
  const auto kernel = root.optional_child("kernel");
  if (!kernel) return;
  if (const auto w = kernel->optional_child("w4a16")) {
    if (r.op != "matmul" || r.dtype != hw::DType::kW4A16) {
      w->refuse({"format", "layout"}, "applies to --op matmul --dtype w4a16 (the W4A16 kernels)");
    } else if (r.unit != "npu") {
      w->refuse({"layout"}, "is the NPU's dequantization layout; the " + r.unit + "'s W4A16 kernel has one");
    }
  }
  if (const auto f = kernel->optional_child("flash")) {
    if (!runs_flash_attention(r)) f->refuse({"kv_tile", "q_block"}, "applies to --op attention --unit npu --dtype fp16 (FlashAttention on HMX)");
  }
}

void check_options_apply(const po::variables_map& vm, const std::string& op, const std::string& unit, const std::string& engine) {
  const auto read = options_read(op, unit, engine);
  for (const auto& [name, value] : vm) {
    if (value.defaulted() || read.count(name)) continue;
    std::string reads;
    for (const auto& o : read) {
      if (o != "help" && o != "soc" && o != "op" && o != "unit" && o != "set" && o != "json" && o != "engine" && o != "max-host-memory") reads += (reads.empty() ? "--" : ", --") + o;
    }
    const std::string bench = "--op " + op + " --unit " + unit + (engine.empty() ? "" : " --engine " + engine);
    throw config::ConfigError(kCli, "--" + name, "does not apply to " + bench + " (it reads " + (reads.empty() ? "no other option" : reads) + ")");
  }
}

struct Parsed {
  bool help = false;
  std::string help_text, json_file;
  std::uint64_t max_host_memory = 0;
  runtime::MicrobenchRequest request;
};

Parsed parse(const std::vector<std::string>& args) {
  config::forget_times_read();  // an overflow names the longest duration of these inputs
  Parsed p;
  auto& r = p.request;
  std::string soc, dtype, operands = "ddr", model, max_host_memory, graph_io = "client";
  std::vector<std::string> sets;
  po::options_description opts("socsim microbench options");
  opts.add_options()
      ("help,h", "this message")
      ("soc", po::value(&soc), "SoC file or id")
      ("op", po::value(&r.op), "matmul | qk | read | copy | graph-build | softmax | attention")
      ("unit", po::value(&r.unit), "npu | gpu | cpu (read: also gpu+npu)")
      ("engine", po::value(&r.engine), "npu: hmx | hvx | dma (default: the vendor runtime's path: matmul and attention on HMX, softmax on HVX, read by all HVX threads)")
      ("dtype", po::value(&dtype), "int8 | fp16 | fp32 | w4a16")
      ("m", po::value(&r.m), "rows of A (activations)")
      ("k", po::value(&r.k), "reduction dimension")
      ("n", po::value(&r.n), "columns of the weight B")
      ("heads", po::value(&r.heads), "qk: heads fused in one graph; attention: query heads (default 1)")
      ("kv-heads", po::value(&r.kv_heads), "attention: KV heads (default = heads; fewer = GQA)")
      ("q", po::value(&r.q), "attention: query rows (the last --q positions of the --kv keys)")
      ("kv", po::value(&r.kv), "attention: keys (KV length)")
      ("exp", po::value(&r.exp), "softmax/attention exp: exact (= fp32) | poly (= fp16) | lut (default: exact on cpu/gpu, lut on npu)")
      ("threads", po::value(&r.threads), "npu hvx: threads (default 1); cpu: cores (default 4 fastest, or every core of a smaller CPU)")
      ("operands", po::value(&operands), "ddr (default) or tcm: operands already in the NPU's TCM (bare kernel)")
      ("layout", po::value(&r.layout), "npu matmul (hmx, ddr): the activation tensor in the graph: packed (default: rows straight into HMX tiles) | HxW (height x width = m, e.g. 32x32; each padded to whole croutons, npu.layout) | equivalent (the fastest HxW, as llm.npu profiles)")
      ("graph-io", po::value(&graph_io), "qk, and attention --unit npu --dtype int8 (npu-full's graph): client (default: the graph's tensors are client buffers, synchronized per execute as in shadowAttn's stack, npu.graph.client_io_*) | shared (registered shared memory)")
      ("bytes", po::value(&r.bytes), "read/copy: bytes")
      ("model", po::value(&model), "graph-build: model config or id")
      ("prompt", po::value(&r.prompt), "graph-build: sequence length of the graph")
      ("set", po::value(&sets)->composing(), "override a SoC parameter (--set npu.tcm=16MiB) or a kernel switch (--set kernel.w4a16.format=q8_0, kernel.w4a16.layout=tile-group|ggml, kernel.flash.kv_tile=32|64, kernel.flash.q_block=N); repeatable")
      ("json", po::value(&p.json_file), "write the JSON result to this file")
      ("max-host-memory", po::value(&max_host_memory), "stop with exit 2 when lowering the kernel holds more host memory than this (default: half the machine's memory; 0 = no limit), e.g. 4GiB");
  po::variables_map vm;
  parse_options(args, opts, vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::ostringstream h;
    h << "usage: socsim microbench --soc S --op OP --unit U [--engine hmx|hvx|dma] [--dtype D] [--m M --k K --n N]\n"
         "                         [--heads H] [--graph-io client|shared] [--kv-heads G --q Q --kv N --exp exact|poly|lut] [--threads T]\n"
         "                         [--operands ddr|tcm] [--layout packed|HxW|equivalent] [--bytes B] [--model M --prompt P]\n"
         "                         [--set k=v]... [--json FILE]\n\n"
      << opts;
    p.help = true;
    p.help_text = h.str();
    return p;
  }
  p.max_host_memory = host_memory_limit(max_host_memory);
  if (!p.json_file.empty()) check_output_path("--json", p.json_file, false);
  if (soc.empty()) throw config::ConfigError(kCli, "--soc", "is required");
  if (r.op.empty()) throw config::ConfigError(kCli, "--op", "is required (matmul | qk | read | copy | graph-build | softmax | attention)");
  if (r.op != "matmul" && r.op != "qk" && r.op != "read" && r.op != "copy" && r.op != "graph-build" && r.op != "softmax" &&
      r.op != "attention") {
    throw config::ConfigError(kCli, "--op", "expected matmul | qk | read | copy | graph-build | softmax | attention, got '" + r.op + "'");
  }
  if (r.unit.empty()) r.unit = r.op == "graph-build" ? "npu" : "";
  if (r.unit != "npu" && r.unit != "gpu" && r.unit != "cpu" && r.unit != "gpu+npu") {
    throw config::ConfigError(kCli, "--unit", "expected npu | gpu | cpu | gpu+npu, got '" + r.unit + "'");
  }
  if (!dtype.empty()) {
    const auto d = hw::parse_dtype(dtype);
    if (!d) throw config::ConfigError(kCli, "--dtype", "expected int8 | fp16 | fp32 | w4a16, got '" + dtype + "'");
    r.dtype = *d;
  } else if (r.op == "matmul" || r.op == "qk") {
    throw config::ConfigError(kCli, "--dtype", "is required for " + r.op);
  }
  check_options_apply(vm, r.op, r.unit, r.engine);
  // Paths with one engine or one operand home: a choice given there would be echoed, not used.
  if ((r.op == "qk" && !r.engine.empty() && r.engine != "hmx") || (r.op == "graph-build" && !r.engine.empty())) {
    throw config::ConfigError(kCli, "--engine", r.op == "qk" ? "does not apply to --op qk (its static graph multiplies on HMX)"
                                                             : "does not apply to --op graph-build (the build is the CPU's work)");
  }
  // The NPU's softmax gives each HVX thread whole rows: threads past the rows would idle.
  if (r.op == "softmax" && r.unit == "npu" && vm.count("threads") && r.threads > r.m) {
    throw config::ConfigError(kCli, "--threads", std::to_string(r.threads) + " HVX threads for " + std::to_string(r.m) +
                                                     " row(s): each thread takes whole rows, so at most --m threads work");
  }
  const bool npu_attention = r.op == "attention" && r.unit == "npu";
  const bool flash = runs_flash_attention(r);
  if (npu_attention && r.dtype == hw::DType::kInt8 && vm.count("operands")) {
    throw config::ConfigError(kCli, "--operands", "does not apply to the INT8 attention graph (the vendor runtime reads its operands from DDR)");
  }
  // Grouped-query heads change what FlashAttention on HMX reads; the other attention kernels
  // re-read K and V per query head whatever the grouping.
  if (r.op == "attention" && !flash && vm.count("kv-heads")) {
    throw config::ConfigError(kCli, "--kv-heads", "applies to --op attention --unit npu --dtype fp16 (FlashAttention on HMX) only; the other attention kernels read K and V per query head");
  }
  if (vm.count("threads") && r.threads == 0) throw config::ConfigError(kCli, "--threads", "must be at least 1 (leave it out for the default)");
  if (vm.count("kv-heads") && r.kv_heads == 0) throw config::ConfigError(kCli, "--kv-heads", "must be at least 1 (leave it out for as many as --heads)");
  if (vm.count("layout") && (r.op != "matmul" || r.unit != "npu")) {
    throw config::ConfigError(kCli, "--layout", "applies to --op matmul --unit npu only");
  }
  if (graph_io != "client" && graph_io != "shared") throw config::ConfigError(kCli, "--graph-io", "expected client or shared, got '" + graph_io + "'");
  r.client_io = graph_io == "client";
  if (vm.count("graph-io") && r.op == "attention" && r.dtype != hw::DType::kInt8) {
    throw config::ConfigError(kCli, "--graph-io", "applies to the INT8 attention graph (--dtype int8); FlashAttention and HVX attention are custom kernels without a graph call");
  }
  if (operands != "ddr" && operands != "tcm") throw config::ConfigError(kCli, "--operands", "expected ddr or tcm, got '" + operands + "'");
  r.operands = operands == "tcm" ? hw::OperandHome::kTcm : hw::OperandHome::kDram;
  const auto soc_path = resolve_input(InputKind::kSoc, soc);
  r.soc_id = soc_path.stem().string();
  // One tree for the SoC file and every --set: hardware keys go to the SoC spec, kernel.* to the
  // kernel switches; a key neither reads is an error.
  auto tree = config::ConfigTree::load_file(soc_path);
  for (const auto& o : sets) tree.apply_override(o);
  r.soc = hw::parse_soc_spec(tree);
  r.switches = runtime::read_kernel_switches(tree.root());
  refuse_switches_elsewhere(tree.root(), r);
  tree.check_all_consumed();
  r.soc.source_file = soc_path.string();
  r.soc.resolved_yaml = tree.dump_yaml();
  std::filesystem::path model_path;
  if (!model.empty()) {
    model_path = resolve_input(InputKind::kModel, model);
    r.model = model::load_model_config(model_path);
  }
  // The result written over an input (--soc soc.yaml --json soc.yaml) would destroy it.
  if (!p.json_file.empty()) check_output_not_input("--json", p.json_file, with_included({{"--soc", soc_path}, {"--model", model_path}}, "--soc", tree));
  return p;
}

// The kernel's result under --max-host-memory (a huge attention shape lowers to steps that would
// take the host's memory).
nlohmann::ordered_json run_bounded(const Parsed& p) {
  const ScopedHostMemoryLimit limit(p.max_host_memory);
  try {
    return runtime::run_microbench(p.request);
  } catch (const HostMemoryExceeded& e) {
    throw config::ConfigError(kCli, "--max-host-memory", std::string(e.what()) + " while lowering the kernel; use a smaller shape or raise --max-host-memory");
  } catch (const TimeOverflow& e) {
    // A read or copy whose own flow is too long for its bytes: name the option to shrink (it said
    // only "the inputs"). Other overflows (a GPU submit time set to days) keep the general message.
    if ((p.request.op != "read" && p.request.op != "copy") || std::string_view(e.what()).find("flow duration") == std::string_view::npos) throw;
    throw config::ConfigError(kCli, "--bytes",
                              fmt::format("{} bytes take longer on this path than socsim can represent (64-bit picoseconds: 213 days): {}; use fewer bytes",
                                          p.request.bytes, e.what()));
  }
}

}  // namespace

nlohmann::ordered_json microbench_to_json(const std::vector<std::string>& args) {
  const Parsed p = parse(args);
  if (p.help) throw config::ConfigError(kCli, "--help", "has no JSON result");
  return run_bounded(p);
}

int microbench_command(const std::vector<std::string>& args) {
  const Parsed p = parse(args);
  if (p.help) {
    std::cout << p.help_text;
    return 0;
  }
  const auto j = run_bounded(p);
  OutputFiles out;
  if (!p.json_file.empty()) out.add(p.json_file, report::json_text(j, 2) + "\n");
  out.write_all();
  std::cout << "socsim microbench: " << p.request.op << " on " << p.request.unit << " (" << p.request.soc_id << ")\n";
  for (const char* key : {"latency_ms", "latency_us", "gflops", "gbps", "build_ms", "optimize_ms"}) {
    if (j.contains(key)) std::cout << "  " << key << ": " << j[key].get<double>() << "\n";
  }
  if (j.contains("plan")) std::cout << "  plan: " << report::json_text(j["plan"]) << "\n";
  return 0;
}

}  // namespace socsim::cli
