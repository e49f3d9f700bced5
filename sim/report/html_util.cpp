#include "sim/report/html_util.h"

#include <fmt/format.h>

namespace socsim::report::html {

std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  }
  return o;
}

const char* colour(std::size_t i) {
  static const char* kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f", "#ff9da7", "#bab0ac"};
  return kPalette[i % 10];
}

std::string time_label(double ms) {
  if (ms >= 1000) return fmt::format("{:.3g} s", ms / 1000);
  return fmt::format("{:.3g} ms", ms);
}

}  // namespace socsim::report::html
