#pragma once
// The per-operation costs the service plans and accounts with, as linear functions profiled once
// ("at install time", LLMS §3.3) from the simulated units:
//   recompute: T_re(x) = fixed + per_chunk x for x > 0 (and 0 for none), fitted to prefills of
//              1, 2, 4 and 8 chunks run by the recompute system through simulate_run, with the
//              energy of those runs fitted the same way;
//   storage:   T_IO = per_chunk x chunks + per_byte x bytes: the storage device's part fitted to
//              request series timed on the SoC's storage model (UfsStorage), reads and writes
//              separately, at the request size of the chunk I/O path (a chunk's layer by default),
//              plus the I/O thread's host work (chunk_io_path.h), which is linear already.
#include <cstdint>
#include <string>

#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"
#include "sim/systems/llms/chunk_io_path.h"
#include "sim/systems/llms/llms_options.h"

namespace socsim::systems::llms {

struct LinearCost {
  double fixed = 0, per_unit = 0;
  double at(double x) const { return x > 0 ? fixed + per_unit * x : 0.0; }
};


struct ServiceCosts {
  LinearCost recompute_s;  // per chunk of chunk_tokens tokens
  LinearCost recompute_j;
  IoCost read, write;  // per chunk: the storage device's time plus the I/O thread's host work
  IoCost read_storage, write_storage;  // the device's part alone, per storage request (reports)
  ChunkIoPath io;                      // the host part, and its power
  double read_j_per_byte = 0, write_j_per_byte = 0;  // storage energy (power section)
};

// Least squares line through (x, y) points, its intercept held at >= 0 (a cost at zero is never
// negative); at least two distinct x.
LinearCost fit_line(const std::vector<double>& x, const std::vector<double>& y);
// Least squares T = a requests + b bytes (no intercept) through (requests, bytes, seconds) points.
IoCost fit_io(const std::vector<double>& requests, const std::vector<double>& bytes, const std::vector<double>& seconds);

// The prompt lengths the recompute cost is profiled at: 1, 2, 4 and 8 chunks, those within the
// model's window (0: no window); when fewer than three fit (chunks near the window's size), halves
// of the smallest, down to one token (a one-token window adds two tokens: a line needs two
// points). A context never holds more than the window, so recompute
// beyond it is never asked for, and a prefill past it could fail the memory check for a reason
// that is not the user's.
std::vector<std::uint64_t> recompute_profile_tokens(std::uint32_t chunk_tokens, std::uint64_t window);

// Profiles the SoC: simulated runs, not formulas (see the header comment). Slow-ish (a few
// prefills): callers profile once per (SoC, model, options, chunk size). element_bytes: the KV
// cache's element size (1 INT8, 2 FP16), chunk_bytes: an uncompressed chunk over all layers.
ServiceCosts profile_costs(const hw::SocSpec& soc, const model::ModelConfig& model, const Options& opt, std::uint64_t chunk_bytes,
                           std::uint32_t element_bytes);

}  // namespace socsim::systems::llms
