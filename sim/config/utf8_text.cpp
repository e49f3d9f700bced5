#include "sim/config/utf8_text.h"

#include <cstdint>

namespace socsim::config::detail {

std::optional<std::size_t> first_non_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    std::uint32_t cp = 0, least = 0;
    if ((c & 0xE0) == 0xC0) len = 2, cp = c & 0x1F, least = 0x80;
    else if ((c & 0xF0) == 0xE0) len = 3, cp = c & 0x0F, least = 0x800;
    else if ((c & 0xF8) == 0xF0) len = 4, cp = c & 0x07, least = 0x10000;
    else return i;
    if (i + len > text.size()) return i;
    for (std::size_t k = 1; k < len; ++k) {
      const auto d = static_cast<unsigned char>(text[i + k]);
      if ((d & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (d & 0x3F);
    }
    if (cp < least || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return std::nullopt;
}

}  // namespace socsim::config::detail
