#include "sim/sweep/out_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "sim/config/config_error.h"

namespace socsim::sweep {

OutLock::OutLock(const std::filesystem::path& out_dir) {
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  const auto file = out_dir / ".lock";
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw config::ConfigError({file.string(), 0, 0}, "--out", std::string("cannot create the folder's lock file (") + std::strerror(errno) + ")");
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    if (e == ENOLCK || e == EOPNOTSUPP || e == ENOSYS) {
      // A file system without locks (NFS without lockd): run unlocked, and say so.
      std::fprintf(stderr, "warning: %s: this file system cannot lock (%s); nothing stops a second sweep writing here\n",
                   out_dir.c_str(), std::strerror(e));
      return;
    }
    char pid[32] = {};
    const ssize_t n = ::pread(fd_, pid, sizeof pid - 1, 0);
    ::close(fd_);
    fd_ = -1;
    const std::string holder = n > 0 ? " (pid " + std::string(pid, static_cast<std::size_t>(n)) + ")" : std::string();
    throw config::ConfigError({out_dir.string(), 0, 0}, "--out",
                              e == EWOULDBLOCK ? "another sweep is writing to this folder" + holder + ": wait for it or choose another --out"
                                               : std::string("cannot lock the folder (") + std::strerror(e) + ")");
  }
  // The holder's pid and host, for the message another sweep gets.
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  const std::string me = std::to_string(::getpid()) + (host[0] ? std::string(" on ") + host : std::string());
  if (::ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] const ssize_t w = ::pwrite(fd_, me.data(), me.size(), 0);
  }
}

OutLock::~OutLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace socsim::sweep
