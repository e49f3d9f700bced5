#pragma once
// A system (strategy) decides where each op of a request runs, at what precision, in what order
// and with which synchronization: it turns the model graph into a runtime Plan. Everything else
// (kernels, units, memory) is shared. Systems register by id (the contract's system ids) so the
// command line selects them without an if/else chain.
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/config/config_tree.h"
#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"
#include "sim/runtime/data_driven.h"
#include "sim/runtime/job.h"
#include "sim/runtime/sync_policy.h"

namespace socsim::runtime::lowering {
class LoweringCache;
}

namespace socsim::systems {

struct RequestShape {
  std::uint64_t prompt = 0, decode = 0, batch = 1;
  // A window of a long decode: runtime::simulate_run plans and runs a long decode window by window
  // so host memory stays bounded (issue #21). With `decode_only`, plan decode steps [first_step,
  // first_step + decode) alone: the prefill and the steps before ran in earlier plans, so the
  // window's first job waits for nothing. Only for systems whose decode_windows() is true.
  std::uint64_t first_step = 0;
  bool decode_only = false;
  // The whole request's decode steps when this plan is one of its windows (0: `decode`): what
  // memory checks and reports size KV caches for.
  std::uint64_t request_decode = 0;
  std::uint64_t total_decode() const { return request_decode != 0 ? request_decode : decode; }
};

class System {
 public:
  virtual ~System() = default;
  virtual std::string id() const = 0;
  // Reads the system's own options (a `<id>:` section of --set overrides) and checks the model
  // fits the units it uses; throws config::ConfigError for bad input.
  virtual void configure(config::Section& options, const hw::SocSpec& soc, const model::ModelConfig& model) = 0;
  virtual runtime::Plan plan(const hw::SocSpec& soc, const model::ModelConfig& model, const RequestShape& request) = 0;
  virtual runtime::SyncPolicy sync_policy() const { return {}; }
  // Data-driven quantities that the next plan() must follow (functional mode's measurements,
  // runtime/data_driven.h); nullptr: plan from the modelled values. Systems whose plans depend on
  // such data override it.
  virtual void use_data(const runtime::DataDriven* /*data*/) {}
  // plan() with `data` in force for this plan only: use_data(nullptr) again after it, also when
  // planning throws (a system object is reused for the next plan).
  runtime::Plan plan_with(const runtime::DataDriven* data, const hw::SocSpec& soc, const model::ModelConfig& model, const RequestShape& request) {
    struct Reset {
      System& s;
      ~Reset() { s.use_data(nullptr); }
    } reset{*this};
    use_data(data);
    return plan(soc, model, request);
  }
  // Whether the system's samples stop at an end-of-sequence token and leave the batch (test-time
  // scaling's batched sampling): functional mode then measures each sample's decode length from
  // the system's own greedy tokens (DataDriven::decode_steps) and passes it to use_data.
  virtual bool samples_stop_at_eos() const { return false; }
  // Why functional mode cannot compute this configuration (the option that makes it so and what to
  // do instead), or empty when it can. `socsim run --mode functional` exits 2 with it.
  virtual std::string functional_unsupported() const { return {}; }
  // Bits per weight the system stores (for memory and address-space checks and reports).
  virtual double weight_bits() const = 0;
  // Whether plan() takes decode windows (RequestShape::decode_only): true for systems whose decode
  // steps run one after another, each waiting for the previous step's sampled token, so a window
  // run after the previous one's end times exactly as the whole plan would.
  virtual bool decode_windows() const { return false; }
  // Files the system's options name and it reads (shadowAttn's importance_file), once configured,
  // each with its option's key: a run's outputs must not replace one.
  struct InputFile {
    std::string key;  // "shadowattn.importance_file"
    std::filesystem::path path;
  };
  virtual std::vector<InputFile> input_files() const { return {}; }
  // The run's lowering cache while a run plans with this system (simulate_run sets it and takes it
  // back when the run ends; nullptr otherwise): a planner that profiles jobs (JobProfiler) lowers
  // through it, so the ops it profiles are not lowered a second time when the run executes them.
  void share_lowering(runtime::lowering::LoweringCache* cache) { lowering_ = cache; }
  runtime::lowering::LoweringCache* shared_lowering() const { return lowering_; }

 private:
  runtime::lowering::LoweringCache* lowering_ = nullptr;
};

using SystemFactory = std::function<std::unique_ptr<System>()>;

class SystemRegistry {
 public:
  static const SystemRegistry& builtin();
  void add(std::string id, SystemFactory f) { factories_.emplace(std::move(id), std::move(f)); }
  bool has(const std::string& id) const { return factories_.count(id) != 0; }
  std::unique_ptr<System> make(const std::string& id) const { return factories_.at(id)(); }
  std::vector<std::string> ids() const;

 private:
  std::map<std::string, SystemFactory> factories_;
};

}  // namespace socsim::systems
