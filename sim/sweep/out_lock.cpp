#include "sim/sweep/out_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
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
  // A sweep that ends removes its lock file (below). A sweep that opened the file just before
  // that removal may then lock a file no longer in the folder while a third one creates and locks
  // a new one: after locking, check that the file locked is the one at the path, else try again.
  for (int attempt = 0;; ++attempt) {
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
    struct stat held {}, named {};
    if (::fstat(fd_, &held) == 0 && ::stat(file.c_str(), &named) == 0 && held.st_ino == named.st_ino && held.st_dev == named.st_dev) break;
    ::close(fd_);
    fd_ = -1;
    if (attempt == 100) {
      throw config::ConfigError({file.string(), 0, 0}, "--out", "the folder's lock file keeps being replaced: is another sweep starting and ending here?");
    }
  }
  path_ = file;
  // The holder's pid and host, for the message another sweep gets.
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  const std::string me = std::to_string(::getpid()) + (host[0] ? std::string(" on ") + host : std::string());
  if (::ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] const ssize_t w = ::pwrite(fd_, me.data(), me.size(), 0);
  }
}

OutLock::~OutLock() {
  if (fd_ < 0) return;
  // Removed while still held, so no other sweep can hold it at the path meanwhile; a sweep killed
  // outright leaves the file, which is harmless (the kernel released its lock).
  if (!path_.empty()) ::unlink(path_.c_str());
  ::close(fd_);  // closing releases the flock
}

}  // namespace socsim::sweep
