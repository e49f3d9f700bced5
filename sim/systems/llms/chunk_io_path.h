#pragma once
// The host side of swapping a KV chunk in or out: what the service's I/O thread does around the
// storage request itself (LLMS §3.3, item 12 of issue #18). The paper's prototype is Python on
// HF Transformers (Jetson) with "a separate I/O thread" that serializes chunks "with pickle", and
// its pipeline reads "the KV of layer n+1" while layer n is recomputed, so a chunk is stored and
// read layer by layer. Reconstruction (README, "LLMS read path"):
//
//   requests per chunk   layers (io_granularity=layer; `chunk`: one request holds every layer)
//   per request          the storage request (the SoC's storage model, one at a time: a single
//                        synchronous thread), plus file open/read/close from Python
//                        (io_file_cycles), plus unpickling its tensors (io_tensor_cycles each):
//                        K and V, and for a quantized KV cache each with its scales (4; an FP16
//                        cache has 2)
//   per stored byte      host copies (page cache -> user buffer, pickle bytes -> tensor storage:
//                        io_host_copies passes at one core's core_bandwidth)
//   compressed chunks    unpacking the 4/8 and 2/8 levels back to INT8 on the host: one pass over
//                        the rebuilt INT8 bytes
//   per delivered byte   the upload of the chunk as inference holds it (INT8 or FP16, after
//                        unpacking) to the GPU when the recompute system runs on the GPU
//                        (gpu.copy_fixed per tensor + gpu.copy_bandwidth), io_upload
//
// Writes (the ahead-of-time swap-out) mirror it: the download from the GPU, packing compressed
// chunks, pickling (which costs what unpickling does: the public measurement below has dump and
// load within 12%), the file write. The Python thread runs on one core of the fastest cluster;
// its time is CPU energy at that core's active power. It is one thread: its work and the storage
// request it waits on add up. Every policy is a policy of the same service prototype, so the
// baselines (vllm-s, vllm-sq, swap) move their chunks through the same path.
#include <cstdint>

#include "sim/hw/soc_spec.h"
#include "sim/model/model_config.h"
#include "sim/systems/llms/llms_options.h"

namespace socsim::systems::llms {

// Time to move chunks between storage and the accelerator (reads) or back (writes). requests:
// chunks; stored: bytes on storage; delivered: bytes as inference holds them (after unpacking);
// packed: the delivered bytes of compressed chunks, which pass through (un)packing.
struct IoCost {
  double per_request_s = 0, per_byte_s = 0;
  double per_delivered_byte_s = 0, per_packed_byte_s = 0;
  double seconds(double requests, double stored, double delivered = 0, double packed = 0) const {
    return requests * per_request_s + stored * per_byte_s + delivered * per_delivered_byte_s + packed * per_packed_byte_s;
  }
};

struct ChunkIoPath {
  std::uint32_t requests_per_chunk = 1;
  std::uint32_t tensors_per_request = 2;
  double file_s = 0;          // per request: open/read/close from Python
  double tensor_s = 0;        // per tensor: unpickle (read) or pickle (write)
  double copy_s_per_byte = 0;    // host copies, per stored byte
  double upload_fixed_s = 0;     // per tensor: the copy call to the accelerator
  double upload_s_per_byte = 0;  // per delivered byte
  double pack_s_per_byte = 0;    // per delivered byte of a compressed chunk: (un)packing
  double host_power_w = 0;       // the I/O thread's core while it works

  // The host work as a cost per chunk (IoCost's terms); profile_costs adds the storage device's.
  IoCost host_cost() const;
  // Host seconds of `chunks` chunk transfers: `stored` bytes on storage, `delivered` bytes as
  // inference holds them (after unpacking), `packed` of those from compressed chunks.
  double host_seconds(double chunks, double stored, double delivered, double packed) const {
    return host_cost().seconds(chunks, stored, delivered, packed);
  }
  double host_per_chunk_s() const { return host_cost().per_request_s; }
};

// element_bytes: 1 for an INT8 KV cache (llms, vllm-sq), 2 for FP16 (vllm-s, swap, lmk).
// kv_on_gpu: inference (and recompute) runs on the GPU, so each tensor read is uploaded there.
ChunkIoPath chunk_io_path(const hw::SocSpec& soc, const model::ModelConfig& model, const Options& opt, std::uint32_t element_bytes,
                          bool kv_on_gpu);

}  // namespace socsim::systems::llms
