#pragma once
// Writes all of a buffer to a file descriptor, retrying short writes and interrupted calls: the
// one loop behind atomic outputs (sim/cli/output_files.cpp) and the sweep journal.
#include <unistd.h>

#include <cerrno>
#include <string_view>

namespace socsim {

// False with errno set when a write fails.
inline bool write_fully(int fd, std::string_view text) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace socsim
