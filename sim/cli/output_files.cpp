#include "sim/cli/output_files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>

#include "sim/config/config_error.h"
#include "sim/core/field_hash.h"
#include "sim/core/write_fully.h"

namespace socsim::cli {

namespace {

// Where a write to `given` lands: a symbolic link is followed to its target, also when the target
// does not exist yet (as a shell's `>` creates it), link by link, at most 40 (the kernel's limit).
// Throws config::ConfigError naming `option` for a longer chain, a loop or a link that cannot be read.
std::filesystem::path write_target(const std::filesystem::path& given, const std::string& option) {
  std::error_code ec;
  std::filesystem::path p = given;
  for (int hops = 0; std::filesystem::is_symlink(std::filesystem::symlink_status(p, ec)); ++hops) {
    if (hops == 40) throw config::ConfigError({"command line", 0, 0}, option, "'" + given.string() + "' is a loop (or a chain of more than 40) of symbolic links");
    const auto target = std::filesystem::read_symlink(p, ec);
    if (ec) throw config::ConfigError({"command line", 0, 0}, option, "'" + given.string() + "': cannot read the symbolic link '" + p.string() + "' (" + ec.message() + ")");
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  auto canonical = std::filesystem::weakly_canonical(p, ec);
  return ec ? p : canonical;
}

// "." and the target's name, or for a name too long to take the ".tmp.<pid>.<n>" suffix within a
// file name's 255 bytes (an output name of 241-255 bytes was refused as "File name too long"),
// its first 180 bytes and a hash of the whole.
std::string temporary_stem(const std::filesystem::path& target) {
  const std::string name = target.filename().string();
  if (name.size() <= 200) return "." + name;
  return fmt::format(".{}~{:016x}", name.substr(0, 180), static_cast<std::uint64_t>(hash_string(name)));
}

// A temporary name beside `path` (same folder, so the rename is atomic on one file system),
// unique per process and call.
std::filesystem::path temporary_beside(const std::filesystem::path& path) {
  static std::atomic<unsigned> counter{0};
  const std::string name = temporary_stem(path) + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  return path.has_parent_path() ? path.parent_path() / name : std::filesystem::path(name);
}

// Writes all of `content` to `fd` and closes it, with fsync first when `sync`; false with errno
// set on failure.
bool write_and_close(int fd, const std::string& content, bool sync) {
  if (!write_fully(fd, content)) {
    const int e = errno;
    ::close(fd);
    errno = e;
    return false;
  }
  if (sync && ::fsync(fd) != 0) {
    const int e = errno;
    ::close(fd);
    errno = e;
    return false;
  }
  return ::close(fd) == 0;
}

// A regular file, created or truncated, forced to disk.
bool write_durably(const std::filesystem::path& path, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  return fd >= 0 && write_and_close(fd, content, true);
}

// /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N, /proc/<pid>/fd/N: a descriptor this
// process has open, whatever it is (a pipe, a terminal, the file a shell redirected it to). It is
// written in place at its end: replacing the file it names (a temporary renamed over it) dropped
// what the command had printed there, and a pipe's link names no folder to make a temporary in.
bool names_a_descriptor(const std::filesystem::path& p) {
  const std::string s = p.lexically_normal().string();
  if (s == "/dev/stdout" || s == "/dev/stderr" || s.starts_with("/dev/fd/") || s.starts_with("/proc/self/fd/")) return true;
  if (!s.starts_with("/proc/")) return false;
  const std::string rest = s.substr(6);
  const auto slash = rest.find('/');
  return slash != std::string::npos && slash > 0 && rest.find_first_not_of("0123456789") == slash && rest.compare(slash, 4, "/fd/") == 0;
}

// The descriptor number `p` names in this process (/dev/stdout 1, /dev/stderr 2, /dev/fd/N,
// /proc/self/fd/N), or -1.
int own_descriptor(const std::filesystem::path& p) {
  const std::string s = p.lexically_normal().string();
  if (s == "/dev/stdout") return 1;
  if (s == "/dev/stderr") return 2;
  for (const std::string& prefix : {std::string("/dev/fd/"), std::string("/proc/self/fd/"), "/proc/" + std::to_string(::getpid()) + "/fd/"}) {
    if (!s.starts_with(prefix)) continue;
    const std::string n = s.substr(prefix.size());
    if (n.empty() || n.size() > 9 || n.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::stoi(n);
  }
  return -1;
}

// Whether SIGINT, SIGTERM, SIGHUP or SIGQUIT waits, held back (DeferTerminatingSignals).
bool terminating_signal_pending() {
  sigset_t pending;
  if (sigpending(&pending) != 0) return false;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    if (sigismember(&pending, sig) == 1) return true;
  }
  return false;
}

// A FIFO opened for writing: its open blocks until a reader comes, and with the terminating
// signals held (the writes' guard) nothing but SIGKILL ended a run whose --json named a FIFO
// nobody read (`timeout` sent SIGTERM; 10 minutes later it still waited). So the open polls,
// says once after a second what it waits for, and gives up (EINTR) when such a signal waits:
// the process then ends by it once the guard lets it through.
int open_fifo_for_writing(const std::filesystem::path& path) {
  const auto start = std::chrono::steady_clock::now();
  bool said = false;
  for (;;) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
      const int flags = ::fcntl(fd, F_GETFL);
      if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);  // writes wait for the reader as usual
      return fd;
    }
    if (errno != ENXIO) return -1;  // ENXIO: no reader yet
    if (terminating_signal_pending()) {
      errno = EINTR;
      return -1;
    }
    if (!said && std::chrono::steady_clock::now() - start >= std::chrono::seconds(1)) {
      std::cerr << "socsim: waiting for a reader of the FIFO " << path.string() << " to write it (Ctrl-C stops)\n";
      said = true;
    }
    ::usleep(20000);
  }
}

// A device or FIFO: opened for writing without creating or truncating, no fsync (not a file).
bool write_durably_in_place(const std::filesystem::path& path, const std::string& content) {
  struct stat st {};
  const bool fifo = ::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
  const int fd = fifo ? open_fifo_for_writing(path) : ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  return fd >= 0 && write_and_close(fd, content, false);
}

// Temporaries of `target` (temporary_beside's names) whose writer no longer runs: a write that a
// kill cut short. Removed before `target` is written again, so a rerun or a resumed sweep does not
// keep a full-size orphan beside each output. A live writer's (another process) are left alone.
void remove_stale_temporaries_of(const std::filesystem::path& target) {
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  const std::string prefix = temporary_stem(target) + ".tmp.";
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    // "<pid>.<n>", digits only.
    const std::string rest = name.substr(prefix.size());
    const auto dot = rest.find('.');
    if (dot == 0 || dot == std::string::npos || dot + 1 == rest.size()) continue;
    if (rest.find_first_not_of("0123456789.") != std::string::npos || rest.find('.', dot + 1) != std::string::npos) continue;
    if (dot > 9) continue;  // not a pid
    const pid_t pid = static_cast<pid_t>(std::stol(rest.substr(0, dot)));
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    std::error_code ignored;
    std::filesystem::remove(it->path(), ignored);
  }
}

// SIGINT, SIGTERM, SIGHUP and SIGQUIT held back on this thread while the outputs are staged and
// renamed: a Ctrl-C then ends the process once the files are complete (or the temporaries
// removed), not between a temporary and its rename. (`run` writes on its only thread; a sweep's
// workers write while its interrupt guard handles those signals.)
class DeferTerminatingSignals {
 public:
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  DeferTerminatingSignals() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : kSignals) sigaddset(&set, sig);
    pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~DeferTerminatingSignals() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  // A signal held back so far that will end the process once let through (0: none; one ignored,
  // as SIGHUP under nohup, or caught by a handler, ends nothing).
  int pending() const {
    sigset_t set;
    if (sigpending(&set) != 0) return 0;
    for (int sig : kSignals) {
      struct sigaction sa {};
      if (sigismember(&set, sig) == 1 && sigaction(sig, nullptr, &sa) == 0 && sa.sa_handler == SIG_DFL) return sig;
    }
    return 0;
  }
  DeferTerminatingSignals(const DeferTerminatingSignals&) = delete;
  DeferTerminatingSignals& operator=(const DeferTerminatingSignals&) = delete;

 private:
  sigset_t old_;
};

}  // namespace

namespace {

// Whether a file can be created in `dir` (a temporary made and removed at once): permissions alone
// do not say (root may write anywhere but /proc, a read-only mount refuses everyone), and a run
// that learns it only when it writes has done its work for nothing. errno is kept on failure.
bool can_create_in(const std::filesystem::path& dir) {
  // A probe a killed run left is removed as any orphaned temporary (its pid gone); one under a
  // reused pid exists still: the next name is tried.
  remove_stale_temporaries_of(dir / "probe");
  for (int attempt = 0; attempt < 8; ++attempt) {
    const std::filesystem::path probe = temporary_beside(dir / "probe");
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) return false;
    ::close(fd);
    ::unlink(probe.c_str());
    return true;
  }
  return true;  // the folder holds files of that name: files can be created in it
}

[[noreturn]] void cannot_create(const std::string& option, const std::filesystem::path& path, const std::filesystem::path& dir) {
  const std::string reason = std::strerror(errno);
  throw config::ConfigError({"command line", 0, 0}, option,
                            "'" + path.string() + "' cannot be written: no file can be created in '" + dir.string() + "' (" + reason +
                                "); checked before any work");
}

}  // namespace

void check_no_missing_folder_stepped_out(const std::string& option, const std::filesystem::path& given, const std::filesystem::path& path) {
  // An output's missing folders are made (write_all, a sweep's lock). A ".." after a missing folder
  // would have that folder made only to be stepped out of ('a/missing/../x.json' left 'a/missing'
  // behind); the system's own lookup refuses such a path (ENOENT), and so does this.
  std::error_code ec;
  std::filesystem::path prefix;
  for (const auto& part : path) {
    // (Only a folder known to be missing: an error, e.g. no permission to look, is not "missing".)
    if (part == ".." && !prefix.empty() && std::filesystem::status(prefix, ec).type() == std::filesystem::file_type::not_found) {
      throw config::ConfigError({"command line", 0, 0}, option,
                                "'" + given.string() + "' steps out of '" + prefix.string() +
                                    "' with '..', and that folder does not exist: name the output without it");
    }
    prefix /= part;
  }
}

void check_output_path(const std::string& option, const std::filesystem::path& given, bool folder) {
  std::error_code ec;
  // ("-" made a file of that name.)
  if (given == "-") {
    throw config::ConfigError({"command line", 0, 0}, option, "'-' names no file: give a path, or /dev/stdout to write to standard output");
  }
  if (!folder && names_a_descriptor(given)) return;  // written in place (write_all)
  // A symbolic link is followed as the writer follows it (write_all): its target's folder is where
  // the temporary goes (/dev/stdout and the like are this process's descriptors, written in place).
  std::filesystem::path path = given;
  if (std::filesystem::is_symlink(std::filesystem::symlink_status(given, ec))) {
    path = write_target(given, option);
  }
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status)) {
    const bool is_folder = std::filesystem::is_directory(status);
    if (folder && !is_folder) throw config::ConfigError({"command line", 0, 0}, option, "'" + given.string() + "' exists and is not a folder");
    if (!folder && is_folder) throw config::ConfigError({"command line", 0, 0}, option, "'" + given.string() + "' is a folder, expected a file path");
    // A regular file is replaced through a temporary beside it; a folder's files are made in it.
    // (A device or FIFO is written in place.)
    const std::filesystem::path dir = folder ? path : (path.has_parent_path() ? path.parent_path() : std::filesystem::path("."));
    if ((folder || std::filesystem::is_regular_file(status)) && !can_create_in(dir)) cannot_create(option, given, dir);
    return;
  }
  check_no_missing_folder_stepped_out(option, given, path);
  // Its nearest existing ancestor must be a folder (it is created under it) where files can be
  // created.
  for (std::filesystem::path up = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");;
       up = up.has_parent_path() ? up.parent_path() : std::filesystem::path(".")) {
    const auto s = std::filesystem::status(up, ec);
    if (!ec && std::filesystem::exists(s)) {
      if (!std::filesystem::is_directory(s)) {
        throw config::ConfigError({"command line", 0, 0}, option, "'" + given.string() + "' lies under '" + up.string() + "', which is a file");
      }
      if (!can_create_in(up)) cannot_create(option, given, up);
      return;
    }
    if (up == up.parent_path() || up == ".") return;  // the root, or "." missing (a removed working folder)
  }
}

void check_outputs_not_folders(const std::string& option, const std::filesystem::path& dir, std::initializer_list<const char*> names,
                               const std::string& whose) {
  for (const char* name : names) {
    std::error_code ec;
    if (std::filesystem::is_directory(dir / name, ec)) {
      throw config::ConfigError({"command line", 0, 0}, option, (dir / name).string() + " is a folder: " + whose + " " + name + " cannot be written there");
    }
  }
}

std::vector<NamedInput> with_included(std::vector<NamedInput> inputs, const std::string& option, const config::ConfigTree& tree) {
  const auto& files = tree.files();
  for (std::size_t i = 1; i < files.size(); ++i) inputs.push_back({option + "'s include", files[i]});
  return inputs;
}

void check_output_not_input(const std::string& option, const std::filesystem::path& path, const std::vector<NamedInput>& inputs) {
  for (const auto& in : inputs) {
    if (in.path.empty()) continue;
    std::error_code ec;
    // (False, with an error code, when either is missing: a new output replaces nothing.)
    if (!std::filesystem::equivalent(path, in.path, ec) || ec) continue;
    throw config::ConfigError({"command line", 0, 0}, option,
                              "'" + path.string() + "' is the " + in.option + " file ('" + in.path.string() +
                                  "'): writing the output would replace it; choose another path");
  }
}

void check_outputs_differ(const std::string& option, const std::filesystem::path& path, const std::string& other_option,
                          const std::filesystem::path& other) {
  std::error_code ec;
  bool same = std::filesystem::equivalent(path, other, ec);
  if (ec) {
    // Either is missing: compare the spellings resolved (symbolic links of existing parents too).
    std::error_code e1, e2;
    const auto a = std::filesystem::weakly_canonical(std::filesystem::absolute(path, e1), e1);
    const auto b = std::filesystem::weakly_canonical(std::filesystem::absolute(other, e2), e2);
    same = !e1 && !e2 && a == b;
  }
  if (!same) return;
  throw config::ConfigError({"command line", 0, 0}, option,
                            "'" + path.string() + "' is also " + other_option + "'s output '" + other.string() +
                                "': one would replace the other; choose another path");
}

void OutputFiles::write_all() const {
  // Every file goes to a temporary beside its target first; only when all are complete on disk do
  // they replace their targets (rename: atomic), so a failure (a full disk, a kill) leaves neither
  // a truncated file nor a destroyed earlier output. On failure the temporaries are removed.
  const DeferTerminatingSignals defer;
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> staged;  // temporary, target
  const auto discard = [&] {
    std::error_code ignored;
    for (const auto& [tmp, target] : staged) std::filesystem::remove(tmp, ignored);
  };
  for (const auto& [given, content] : files_) {
    std::error_code ec;
    if (names_a_descriptor(given)) {
      std::cout.flush();  // what was printed before it comes first
      std::cerr.flush();
      // This process's own descriptor is written through (a file opened anew has an offset of its
      // own: the lines printed after it would overwrite the output); another's is opened to append.
      if (const int own = own_descriptor(given); own >= 0) {
        if (!write_fully(own, content)) {
          const std::string why = std::strerror(errno);
          discard();
          throw config::ConfigError({given.string(), 0, 0}, "", "cannot write output file (" + why + ")");
        }
        continue;
      }
      const int fd = ::open(given.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
      if (fd < 0 || !write_and_close(fd, content, false)) {
        const std::string why = std::strerror(errno);
        discard();
        throw config::ConfigError({given.string(), 0, 0}, "", "cannot write output file (" + why + ")");
      }
      continue;
    }
    // A target that exists and is not a regular file (/dev/stdout, /dev/null, a FIFO) is written
    // in place: there is nothing to replace, and a rename would clobber the device. A symbolic
    // link is followed, so the file it names is replaced and the link kept.
    const auto status = std::filesystem::status(given, ec);
    if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
      if (!write_durably_in_place(given, content)) {
        const std::string why = std::strerror(errno);
        discard();
        throw config::ConfigError({given.string(), 0, 0}, "", "cannot write output file (" + why + ")");
      }
      continue;
    }
    std::filesystem::path path = given;
    if (std::filesystem::is_symlink(std::filesystem::symlink_status(given, ec))) {
      try {
        path = write_target(given, "output file");  // a loop made since the check before the work
      } catch (const config::ConfigError&) {
        discard();
        throw;
      }
    }
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    remove_stale_temporaries_of(path);
    const auto tmp = temporary_beside(path);
    staged.emplace_back(tmp, path);
    if (!write_durably(tmp, content)) {
      const std::string why = std::strerror(errno);
      discard();
      throw config::ConfigError({path.string(), 0, 0}, "", "cannot write output file (" + why + ")");
    }
  }
  for (std::size_t i = 0; i < staged.size(); ++i) {
    std::error_code ec;
    std::filesystem::rename(staged[i].first, staged[i].second, ec);
    if (ec) {
      staged.erase(staged.begin(), staged.begin() + static_cast<std::ptrdiff_t>(i));
      discard();
      throw config::ConfigError({staged.empty() ? std::string() : staged.front().second.string(), 0, 0}, "",
                                "cannot write output file (" + ec.message() + ")");
    }
  }
  // A signal held back ends the process as `defer` lets it through, before the caller says what it
  // wrote: said here, so an exit by the signal does not read as "nothing replaced".
  if (const int sig = defer.pending(); sig != 0) {
    std::string written;
    for (const auto& [given, content] : files_) written += (written.empty() ? "" : ", ") + given.string();
    std::cout.flush();
    std::fprintf(stderr, "socsim: %s arrived while the outputs were written; each is complete: %s\n",
                 sigabbrev_np(sig) ? (std::string("SIG") + sigabbrev_np(sig)).c_str() : "a signal", written.c_str());
    std::fflush(stderr);
  }
}

std::uintmax_t OutputFiles::bytes() const {
  std::uintmax_t n = 0;
  for (const auto& f : files_) n += f.second.size();
  return n;
}

std::vector<std::filesystem::path> OutputFiles::paths() const {
  std::vector<std::filesystem::path> v;
  for (const auto& f : files_) v.push_back(f.first);
  return v;
}

}  // namespace socsim::cli
