#pragma once
// JSON text of an output. Strings in a report can carry bytes from the user's file names (a SoC
// or model file named in Latin-1), which are not UTF-8; nlohmann's dump throws on them. Invalid
// bytes become U+FFFD instead, so a run that finished always writes its report.
#include <string>

#include <nlohmann/json.hpp>

namespace socsim::report {

std::string json_text(const nlohmann::ordered_json& j, int indent = -1);
std::string json_text(const nlohmann::json& j, int indent = -1);

}  // namespace socsim::report
