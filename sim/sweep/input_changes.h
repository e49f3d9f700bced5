#pragma once
// A sweep's inputs as recorded beside its fingerprint (each part: what it is, its hash), and what
// differs between two records, so a refused resume or merge names the file that changed instead
// of two fingerprints.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace socsim::sweep {

using InputParts = std::vector<std::pair<std::string, std::string>>;

// Larger records (thousands of setting files) are not written: the file that carries them must
// stay readable as one line (a journal's header) or small; a refusal then gives fingerprints only.
inline constexpr std::size_t kMaxInputsBytes = 256 << 10;

// {what: hash, ...}, or null past kMaxInputsBytes or when there are none.
nlohmann::ordered_json inputs_json(const InputParts& parts);

// "--workload w.yaml (with its includes) changed; --soc x.yaml is new". Empty when either record
// is not an object (none was written) or nothing differs.
std::string changed_inputs(const nlohmann::ordered_json& then, const nlohmann::ordered_json& now);

}  // namespace socsim::sweep
