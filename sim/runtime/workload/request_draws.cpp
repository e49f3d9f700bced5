// draw_requests: the `repeat` requests of a workload, from one seeded stream.
#include "sim/runtime/workload/length_draw.h"
#include "sim/runtime/workload/portable_rng.h"
#include "sim/runtime/workload/workload.h"

namespace socsim::runtime {

std::vector<Request> draw_requests(const Workload& workload) {
  // One stream for the whole workload, prompt before decode within a request: the order is part
  // of the format (workload.h), since changing it would change every seeded workload.
  PortableRng rng(workload.seed);
  std::vector<Request> requests;
  requests.reserve(static_cast<std::size_t>(workload.repeat));
  for (std::uint64_t i = 0; i < workload.repeat; ++i) {
    Request r;
    r.prompt = draw_length(workload.prompt, rng);
    r.decode = draw_length(workload.decode, rng);
    r.batch = workload.batch;
    requests.push_back(r);
  }
  return requests;
}

}  // namespace socsim::runtime
