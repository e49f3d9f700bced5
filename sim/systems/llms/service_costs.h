#pragma once
// The per-operation costs the service plans and accounts with, profiled once ("at install time",
// LLMS §3.3) from the simulated units:
//   recompute: cold prefills of 1, 2, 4, 8, ... chunks up to the longest context the served traces
//              reach (at most the model's window), run by the
//              recompute system through simulate_run (time and energy), and the attention over
//              the resident context that the longest of them imply (recompute_cost.h);
//   storage:   T_IO = per_chunk x chunks + per_byte x bytes: the storage device's part fitted to
//              request series timed on the SoC's storage model (UfsStorage), reads and writes
//              separately, at the request size of the chunk I/O path (a chunk's layer by default),
//              plus the I/O thread's host work (chunk_io_path.h), which is linear already.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"
#include "sim/systems/llms/chunk_io_path.h"
#include "sim/systems/llms/llms_options.h"
#include "sim/systems/llms/recompute_cost.h"

namespace socsim::systems::llms {

struct ServiceCosts {
  RecomputeCost recompute_s;  // by tokens recomputed and the query-key pairs they attend over
  RecomputeCost recompute_j;
  IoCost read, write;  // per chunk: the storage device's time plus the I/O thread's host work
  IoCost read_storage, write_storage;  // the device's part alone, per storage request (reports)
  ChunkIoPath io;                      // the host part, and its power
  double read_j_per_byte = 0, write_j_per_byte = 0;  // storage energy (power section)
  std::string profile_stopped_by;  // why the recompute profile stopped short of the window ("" if not)
};

// Least squares T = a requests + b bytes (no intercept) through (requests, bytes, seconds) points.
IoCost fit_io(const std::vector<double>& requests, const std::vector<double>& bytes, const std::vector<double>& seconds);

// The prompt lengths the recompute cost is profiled at: 1, 2, 4, 8 chunks and on, doubling, to
// the model's window, and the window itself (0: no window, 1-8 chunks). When fewer than three
// fit (chunks near the window's size), halves of the smallest, down to one token (a one-token
// window adds two tokens: the cost needs two points). A context never holds more than the window,
// so recompute beyond it is never asked for, and a prefill past it could fail the memory check for
// a reason that is not the user's. The longest prefills are what shows the attention over a long
// resident context.
std::vector<std::uint64_t> recompute_profile_tokens(std::uint32_t chunk_tokens, std::uint64_t window);

// Profiles the SoC: simulated runs, not formulas (see the header comment); callers profile once
// per (SoC, model, options, chunk size). Prefills past 8 chunks that exceed the SoC's memory end
// the profile there (ServiceCosts::recompute_s.longest_profiled_tokens() says where). element_bytes: the KV
// cache's element size (1 INT8, 2 FP16), chunk_bytes: an uncompressed chunk over all layers.
// longest_context: the most tokens any context of the traces to be served will hold (0: the
// window). The profile's ladder stops at its first length at or past it (and not before 8 chunks
// or kPairFitTokens), since no recompute covers more: a short trace on a model with a long window
// does not simulate prefills of the whole window (a 128k window's prefill by a slow-to-simulate
// recompute system was a minute of host time before the first call). The cold cost of every
// length the traces reach is what a whole profile gives (interpolated between the same prefills),
// and the attention per pair is fitted on the prefills up to kPairFitTokens (or the window)
// whatever the traces reach: a trace's costs do not depend on its other contexts' lengths.
inline constexpr std::uint64_t kPairFitTokens = 4096;
ServiceCosts profile_costs(const hw::SocSpec& soc, const model::ModelConfig& model, const Options& opt, std::uint64_t chunk_bytes,
                           std::uint32_t element_bytes, std::uint64_t longest_context = 0);

}  // namespace socsim::systems::llms
