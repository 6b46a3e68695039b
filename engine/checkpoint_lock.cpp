#include "engine/checkpoint_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include <fmt/format.h>

namespace ddsmc::engine {
namespace {

// Who holds the lock, as its holder wrote it ("pid N on HOST").
std::string holder(int fd) {
  char text[256] = {};
  const ssize_t n = pread(fd, text, sizeof text - 1, 0);
  std::string who(text, n > 0 ? static_cast<size_t>(n) : 0);
  while (!who.empty() && (who.back() == '\n' || who.back() == '\0')) who.pop_back();
  return who.empty() || who.find('\n') != std::string::npos ? std::string() : " (" + who + ")";
}

// Records this process as the holder; best effort (a full disk must not
// stop the check: the lock is what matters).
void record_holder(int fd) {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  const std::string me = fmt::format("pid {} on {}\n", static_cast<long>(getpid()), host[0] ? host : "this machine");
  if (ftruncate(fd, 0) == 0) (void)!pwrite(fd, me.data(), me.size(), 0);
}

bool no_locks_here(int error) {
  return error == ENOLCK || error == EOPNOTSUPP || error == ENOSYS || error == EINVAL;
}

}  // namespace

std::string checkpoint_lock_file(const std::string& dir) {
  return (std::filesystem::path(dir) / "ddsmc.lock").string();
}

CheckpointLock::~CheckpointLock() {
  if (fd_ >= 0) close(fd_);
}

std::string CheckpointLock::acquire(const std::string& dir, std::string& warning) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return "cannot create the directory (" + ec.message() + ")";
  const std::string path = checkpoint_lock_file(dir);
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return fmt::format("cannot create its lock file ddsmc.lock ({})", std::strerror(errno));
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    if (no_locks_here(error)) {
      warning = fmt::format("its filesystem does not lock files ({}): nothing stops another check from writing "
                            "its checkpoints there too, which would spoil this one's",
                            std::strerror(error));
    } else {
      const std::string who = error == EWOULDBLOCK ? holder(fd) : std::string();
      close(fd);
      if (error != EWOULDBLOCK) return fmt::format("cannot lock ddsmc.lock ({})", std::strerror(error));
      return "another ddsmc check is writing its checkpoints there" + who +
             "; give this one another directory, or wait until that check ends";
    }
  }
  record_holder(fd);
  if (fd_ >= 0) close(fd_);
  fd_ = fd;
  return {};
}

}  // namespace ddsmc::engine
