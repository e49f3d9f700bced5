#pragma once
// What `serve --mode functional` will cost the host, known before it runs. The density decoder
// (attention_density.h) runs each call's new tokens and scores the call's last rows over the
// context's whole window, so a call costs about its window's tokens plus its new tokens, and a
// long window costs each call more: the same 131 calls took 2.05 s at llms.max_context 1024 and
// 6.49 s at 4096. Measured on the 2-core CI machine (replayed one-context traces of 60 and 600
// calls, qwen2-0.5b, windows 2048..32768): 4.3-5 µs per window token and 1.8 µs per new token
// per call; counted as 5 and 2. The timing simulation of each call comes on top (timing_seconds).
#include <cstdint>
#include <vector>

#include "sim/core/host_work.h"
#include "sim/systems/llms/call_trace.h"

namespace socsim::systems::llms {

struct DensityWork {
  double window_tokens = 0;  // summed over the calls: the window each call's scored rows attend over
  double new_tokens = 0;     // summed over the calls: the tokens each call adds
  double calls = 0;          // call simulations (the timing model's share)
  double held_tokens = 0;    // summed over the calls: the tokens all contexts hold at each call (a reclaim scans them)
  // Timing mode: each call's simulation; the reclaim that makes room for it scans every chunk all
  // contexts hold (to find the resident ones), and under LLMS's compression the call re-ranks its
  // own context's chunks (a sort over its window). Measured on the 2-core CI machine, qwen2-0.5b:
  // at 16-token chunks 2.6-5.6 ns per window token past the calls' share (4, 16 and 64 contexts, 72
  // to 720 hours), 2.5 ms a call with 64 contexts at full 131072-token windows (1/15s over 720 h);
  // counted as 64 ns per chunk of the call's window and 4 ns per chunk held. Smaller chunks cost
  // more than counted (16 contexts over 72 h at 4-token chunks: 20.7 s, counted 13.8), larger ones less.
  double timing_seconds(bool ranks_chunks, std::uint32_t chunk_tokens) const {
    const double chunks = static_cast<double>(chunk_tokens);
    return calls / 15000.0 + 4e-9 * held_tokens / chunks + (ranks_chunks ? 6.4e-8 * window_tokens / chunks : 0.0);
  }
  // Functional mode (LLMS's compression only): the density decoder on top.
  double host_seconds(std::uint32_t chunk_tokens) const { return 5e-6 * window_tokens + 2e-6 * new_tokens + timing_seconds(true, chunk_tokens); }
};

// The most a serve command takes on the reference machine before it is refused with its size
// (as timing mode's 2e8 call simulations: about 3.7 hours).
inline constexpr double kMaxServeHostSeconds = kMaxCommandHostSeconds;

// `calls` served once: each context's window grows by each call's delta and slides at `window`
// tokens (the tokens kept plus the call's, at most the window, as serve slides it).
DensityWork density_work(const std::vector<Call>& calls, std::uint64_t window);

// A generated trace served once per context count 1..contexts (the max-active-contexts search):
// `calls`, the trace of `contexts`, exactly; each smaller count n from the calls' number and the
// mean delta of contexts 0..n-1 (whose datasets its trace draws from), spread evenly over n (fewer
// contexts fill their windows sooner, so each call costs more). Even spreading undercounts a
// skewed pattern (markov, gaussian) somewhat: a busy context's window fills sooner still.
DensityWork density_search_work(const std::vector<Call>& calls, std::uint32_t contexts, std::uint64_t window);

}  // namespace socsim::systems::llms
