// An LD_PRELOAD library for the CLI tests' disk failures, which a test cannot otherwise provoke
// (root ignores permissions, and the CI's file system neither fills up nor fails to sync). Each
// fault is switched on by an environment variable of the child process:
//   SOCSIM_FAULT_WRITE_ENOSPC=1  write() to a regular file (fd > 2) writes the first half of its
//                                first request, then fails with ENOSPC: a disk that fills up
//                                in the middle of a file
//   SOCSIM_FAULT_FSYNC=1         fsync() fails with EIO
//   SOCSIM_FAULT_FDATASYNC=1     fdatasync() fails with EIO
//   SOCSIM_FAULT_FREE_BYTES=N    statvfs() says N bytes are free for the caller (f_bavail): a disk
//                                nearly full, which a writer that checks first must see
//   SOCSIM_FAULT_EACCES=TEXT     fopen()/fopen64() of a path containing TEXT fails with EACCES: an
//                                unreadable input (std::ifstream opens through them)
// Everything else goes to the next definition (libc's, or a sanitizer's interceptor).
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

bool enabled(const char* var) {
  const char* v = std::getenv(var);
  return v != nullptr && v[0] == '1';
}

bool regular_file(int fd) {
  struct stat st {};
  return fd > 2 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

template <class F>
F next(const char* name) {
  return reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

std::atomic<bool> wrote_half{false};

bool denied(const char* path) {
  const char* text = std::getenv("SOCSIM_FAULT_EACCES");
  return text != nullptr && text[0] != '\0' && path != nullptr && std::strstr(path, text) != nullptr;
}

}  // namespace

extern "C" ssize_t write(int fd, const void* buf, size_t n) {
  static const auto real = next<ssize_t (*)(int, const void*, size_t)>("write");
  if (enabled("SOCSIM_FAULT_WRITE_ENOSPC") && regular_file(fd)) {
    if (!wrote_half.exchange(true) && n > 1) return real(fd, buf, n / 2);
    errno = ENOSPC;
    return -1;
  }
  return real(fd, buf, n);
}

extern "C" int fsync(int fd) {
  static const auto real = next<int (*)(int)>("fsync");
  if (enabled("SOCSIM_FAULT_FSYNC")) {
    errno = EIO;
    return -1;
  }
  return real(fd);
}

extern "C" int fdatasync(int fd) {
  static const auto real = next<int (*)(int)>("fdatasync");
  if (enabled("SOCSIM_FAULT_FDATASYNC")) {
    errno = EIO;
    return -1;
  }
  return real(fd);
}

extern "C" FILE* fopen(const char* path, const char* mode) {
  static const auto real = next<FILE* (*)(const char*, const char*)>("fopen");
  if (denied(path)) {
    errno = EACCES;
    return nullptr;
  }
  return real(path, mode);
}

extern "C" FILE* fopen64(const char* path, const char* mode) {
  static const auto real = next<FILE* (*)(const char*, const char*)>("fopen64");
  if (denied(path)) {
    errno = EACCES;
    return nullptr;
  }
  return real(path, mode);
}

// Free space as statvfs reports it (std::filesystem::space reads f_bavail * f_frsize).
namespace {
template <class Stat>
int faked_free(int rc, Stat* st) {
  const char* text = std::getenv("SOCSIM_FAULT_FREE_BYTES");
  if (rc != 0 || text == nullptr || text[0] == '\0' || st == nullptr) return rc;
  const unsigned long long bytes = std::strtoull(text, nullptr, 10);
  const unsigned long long unit = st->f_frsize != 0 ? st->f_frsize : 4096;
  st->f_bavail = bytes / unit;
  st->f_bfree = st->f_bavail;
  return rc;
}
}  // namespace

extern "C" int statvfs(const char* path, struct statvfs* st) {
  static const auto real = next<int (*)(const char*, struct statvfs*)>("statvfs");
  return faked_free(real(path, st), st);
}

extern "C" int statvfs64(const char* path, struct statvfs64* st) {
  static const auto real = next<int (*)(const char*, struct statvfs64*)>("statvfs64");
  return faked_free(real(path, st), st);
}
