#include "engine/spill_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace ddsmc::engine {
namespace {

// Every live SpillFile, for release_all().
std::mutex g_lock;
std::vector<SpillFile*> g_files;
std::atomic<size_t> g_mappings{0};

[[noreturn]] void fail(const std::string& dir, const char* what, int err) {
  throw SpillError(dir + ": " + what + ": " + std::strerror(err));
}

std::string filesystem_name(unsigned long type) {
  switch (type) {
    case 0xEF53: return "ext4";  // (ext2/3/4 share the magic)
    case 0x58465342: return "xfs";
    case 0x9123683E: return "btrfs";
    case 0x01021994: return "tmpfs";
    case 0x858458f6: return "ramfs";
    case 0x794c7630: return "overlayfs";
    case 0x6969: return "nfs";
    case 0x47504653: return "gpfs";
    case 0x0BD00BD0: return "lustre";
    case 0x2fc12fc1: return "zfs";
    case 0x65735546: return "fuse";
    default: {
      char text[32];
      std::snprintf(text, sizeof text, "type 0x%lx", type);
      return text;
    }
  }
}

}  // namespace

ScratchInfo describe_scratch(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) fail(dir, "the scratch directory cannot be examined", errno);
  if (!S_ISDIR(st.st_mode)) throw SpillError(dir + ": the scratch directory is not a directory");
  struct statfs fs {};
  if (::statfs(dir.c_str(), &fs) != 0) fail(dir, "the scratch directory cannot be examined", errno);
  ScratchInfo info;
  info.dir = dir;
  info.filesystem = filesystem_name(static_cast<unsigned long>(fs.f_type));
  info.free_bytes = static_cast<uint64_t>(fs.f_bavail) * static_cast<uint64_t>(fs.f_bsize);
  info.in_memory = info.filesystem == "tmpfs" || info.filesystem == "ramfs";
  return info;
}

SpillFile::SpillFile(const std::string& dir) : dir_(dir) {
  std::signal(SIGXFSZ, SIG_IGN);  // past `ulimit -f`, write() fails with EFBIG instead
  std::string path = dir + "/ddsmc-edges-XXXXXX";
  fd_ = ::mkstemp(path.data());
  if (fd_ < 0) fail(dir, "cannot create a file in the scratch directory", errno);
  ::unlink(path.c_str());
  std::lock_guard lock(g_lock);
  g_files.push_back(this);
}

SpillFile::~SpillFile() {
  {
    std::lock_guard lock(g_lock);
    g_files.erase(std::find(g_files.begin(), g_files.end(), this));
    for (const auto& [p, n] : maps_) ::munmap(p, n);
    g_mappings.fetch_sub(maps_.size());
  }
  ::close(fd_);
}

uint64_t SpillFile::extent(uint64_t n) {
  static const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t at = (end_ + page - 1) / page * page;
  end_ = at + n;
  return at;
}

void SpillFile::write(uint64_t offset, const void* data, size_t n) {
  if (n == 0) return;
  // Blocks first: a full disk fails here, before any byte is written.
  if (const int err = ::posix_fallocate(fd_, static_cast<off_t>(offset), static_cast<off_t>(n)); err != 0)
    fail(dir_, "cannot write the state graph's edges", err);
  const auto* p = static_cast<const char*>(data);
  for (size_t done = 0; done < n;) {
    const ssize_t w = ::pwrite(fd_, p + done, n - done, static_cast<off_t>(offset + done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) fail(dir_, "cannot write the state graph's edges", w < 0 ? errno : ENOSPC);
    done += static_cast<size_t>(w);
  }
  size_ = std::max<uint64_t>(size_, offset + n);
  bytes_.fetch_add(n, std::memory_order_relaxed);
}

const uint8_t* SpillFile::map(uint64_t offset, size_t n) {
  // Pages past the end of the file would fault (SIGBUS): the file is
  // extended to cover the mapping (a hole: no blocks).
  if (offset + n > size_) {
    if (::ftruncate(fd_, static_cast<off_t>(offset + n)) != 0) fail(dir_, "cannot extend the spill file", errno);
    size_ = offset + n;
  }
  void* p = ::mmap(nullptr, n, PROT_READ, MAP_SHARED, fd_, static_cast<off_t>(offset));
  if (p == MAP_FAILED) fail(dir_, "cannot map the spilled edges back", errno);
  std::lock_guard lock(g_lock);
  maps_.emplace_back(p, n);
  g_mappings.fetch_add(1);
  return static_cast<const uint8_t*>(p);
}

void SpillFile::release_all() {
  std::lock_guard lock(g_lock);
  for (SpillFile* f : g_files)
    for (const auto& [p, n] : f->maps_) ::madvise(p, n, MADV_DONTNEED);
}

bool SpillFile::any_mapped() { return g_mappings.load(std::memory_order_relaxed) != 0; }

}  // namespace ddsmc::engine
