#include "sim/report/html_util.h"

#include <fmt/format.h>

#include "sim/core/printable_text.h"

namespace socsim::report::html {

std::string escape(const std::string& s) {
  std::string o;
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    const auto b = static_cast<unsigned char>(c);
    const std::size_t n = utf8_sequence_length(s, i);
    // A byte of no UTF-8 sequence, or a control character HTML does not allow (the page says
    // charset utf-8; a name's ESC or \xff made it invalid), shows as U+FFFD, as the JSON has it.
    if (n == 0 || (b < 0x20 && c != '\t' && c != '\n' && c != '\r') || b == 0x7F) {
      o += "&#xFFFD;";
      ++i;
      continue;
    }
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o.append(s, i, n);
    }
    i += n;
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
