#include "sim/sweep/input_changes.h"

namespace socsim::sweep {

nlohmann::ordered_json inputs_json(const InputParts& parts) {
  nlohmann::ordered_json in = nlohmann::ordered_json::object();
  std::size_t bytes = 0;
  for (const auto& [what, hash] : parts) {
    in[what] = hash;
    bytes += what.size() + hash.size() + 8;
  }
  if (parts.empty() || bytes > kMaxInputsBytes) return nullptr;
  return in;
}

std::string changed_inputs(const nlohmann::ordered_json& then, const nlohmann::ordered_json& now) {
  if (!then.is_object() || !now.is_object()) return {};
  std::vector<std::string> said;
  for (const auto& [what, hash] : now.items()) {
    if (!then.contains(what)) {
      said.push_back(what + " is new");
    } else if (then.at(what) != hash) {
      said.push_back(what == "socsim version" ? "socsim's version changed (" + then.at(what).dump() + ", now " + hash.dump() + ")" : what + " changed");
    }
  }
  for (const auto& [what, hash] : then.items()) {
    if (!now.contains(what)) said.push_back(what + " is no longer used");
  }
  std::string s;
  for (const auto& x : said) s += (s.empty() ? "" : "; ") + x;
  return s;
}

}  // namespace socsim::sweep
