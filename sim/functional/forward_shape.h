#pragma once
// The request functional mode computes, and where its logits are. Sequences all have the same
// length: `prompt` tokens then `decode` tokens. Teacher forcing: the decode steps' input tokens
// are drawn up front with the prompt (not sampled from the logits), so the system under test and
// the FP32 reference see exactly the same contexts and their outputs can be compared position by
// position; sampling from each run's own logits would let one early disagreement send the two
// down different texts, and every later comparison would measure that instead of numerics.
//
// Hidden states are rows of a [sequences * tokens x hidden] matrix, row b * tokens() + t for
// position t of sequence b. Logits exist where a run produces them: the last prompt position
// (prefill's output) and each decode step's position (prompt + s); in that order ("head groups"),
// one row per sequence in each.
#include <cstdint>
#include <vector>

namespace socsim::functional {

struct ForwardShape {
  std::uint64_t prompt = 0, decode = 0, sequences = 1;

  std::uint64_t tokens() const { return prompt + decode; }
  std::uint64_t head_groups() const { return decode + 1; }
  std::uint64_t positions() const { return head_groups() * sequences; }
  // Position of head group g: prefill's last prompt token, then each decode step's token.
  std::uint64_t head_position(std::uint64_t group) const { return group == 0 ? prompt - 1 : prompt + group - 1; }
  std::uint64_t row(std::uint64_t sequence, std::uint64_t position) const { return sequence * tokens() + position; }
};

// Seeded token ids, [sequences * tokens] in the row order above: the prompt and the decode steps'
// inputs, uniform over the vocabulary (the portable generator: the same ids on every platform).
std::vector<std::int32_t> draw_tokens(const ForwardShape& shape, std::uint64_t vocab, std::uint64_t seed);

}  // namespace socsim::functional
