#include "engine/d2c/step_cache.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "hashing/fingerprint.hpp"

namespace ddsmc::engine {
namespace {

namespace fs = std::filesystem;

// The seal after the object's bytes: XXH3-128 of KEY '\0' bytes, the
// object's length, a magic word (all little-endian, as this machine).
constexpr char kMagic[8] = {'d', 'd', 's', 'm', 'c', 's', 'o', '1'};
constexpr size_t kSeal = 16 + 8 + sizeof kMagic;
constexpr size_t kMaxObject = size_t{256} << 20;

hashing::Fingerprint seal_hash(const std::string& key, std::string_view object) {
  std::string text = key;
  text += '\0';
  text.append(object);
  return hashing::fingerprint(text);
}

std::string errno_text() { return std::strerror(errno); }

std::string mode_text(mode_t m) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(m & 07777));
  return buf;
}

// Why `st` (the directory `path`, or one above it when !last) cannot be
// trusted, or "".
std::string untrusted(const std::string& path, const struct stat& st, bool last) {
  const uid_t me = ::geteuid();
  if (!S_ISDIR(st.st_mode)) return path + " is not a directory";
  if (st.st_uid != me && (last || st.st_uid != 0))
    return path + " belongs to user id " + std::to_string(st.st_uid) + ", not to you (user id " +
           std::to_string(me) + ")";
  const bool sticky = (st.st_mode & S_ISVTX) != 0;
  if ((st.st_mode & 022) && (last || !sticky))
    return path + " is writable by others (mode " + mode_text(st.st_mode) + ")";
  return {};
}

// Checks `dir` (resolved) and every directory above it.
std::string untrusted_path(const std::string& dir) {
  char* real = ::realpath(dir.c_str(), nullptr);
  if (!real) return "cannot resolve " + dir + ": " + errno_text();
  const std::string resolved = real;
  std::free(real);
  std::string prefix;
  if (resolved != "/") {  // the root first, then each directory down to `resolved`
    struct stat st {};
    if (::stat("/", &st) != 0) return "cannot inspect /: " + errno_text();
    if (std::string why = untrusted("/", st, false); !why.empty()) return why;
  }
  for (size_t at = 0; at != std::string::npos;) {
    const size_t next = resolved.find('/', at + 1);
    prefix = resolved.substr(0, next == std::string::npos ? resolved.size() : next);
    if (prefix.empty()) prefix = "/";
    struct stat st {};
    if (::stat(prefix.c_str(), &st) != 0) return "cannot inspect " + prefix + ": " + errno_text();
    if (std::string why = untrusted(prefix, st, next == std::string::npos); !why.empty()) return why;
    at = next;
  }
  return {};
}

bool read_all(int fd, std::string& bytes, size_t cap) {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    bytes.append(buf, static_cast<size_t>(n));
    if (bytes.size() > cap) return false;
  }
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// What is wrong with the sealed file `bytes` for KEY, or "".
std::string seal_problem(const std::string& key, std::string_view bytes) {
  if (bytes.size() < kSeal || std::memcmp(bytes.data() + bytes.size() - sizeof kMagic, kMagic, sizeof kMagic) != 0)
    return "it carries no seal of ddsmc";
  uint64_t length = 0;
  hashing::Fingerprint recorded;
  const char* seal = bytes.data() + bytes.size() - kSeal;
  std::memcpy(&recorded.lo, seal, 8);
  std::memcpy(&recorded.hi, seal + 8, 8);
  std::memcpy(&length, seal + 16, 8);
  if (length != bytes.size() - kSeal) return "its length does not match its seal (truncated or extended)";
  if (!(seal_hash(key, bytes.substr(0, length)) == recorded))
    return "its contents do not match its seal (damaged, or made for another model)";
  return elf_problem(bytes.substr(0, length));
}

}  // namespace

std::string elf_problem(std::string_view b) {
  Elf64_Ehdr eh;
  if (b.size() < sizeof eh) return "it is too short for an ELF object";
  std::memcpy(&eh, b.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) return "it is not an ELF object";
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_DYN || eh.e_phentsize != sizeof(Elf64_Phdr))
    return "it is not a 64-bit ELF shared object";
  auto inside = [&](uint64_t off, uint64_t len) { return off <= b.size() && len <= b.size() - off; };
  if (!inside(eh.e_phoff, uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr))) return "its program headers are cut off";
  if (eh.e_shoff && !inside(eh.e_shoff, uint64_t{eh.e_shnum} * eh.e_shentsize)) return "its section headers are cut off";
  for (uint16_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, b.data() + eh.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type != PT_NULL && !inside(ph.p_offset, ph.p_filesz)) return "a segment lies beyond its end";
  }
  return {};
}

std::unique_ptr<StepCache> StepCache::open(const std::string& dir, std::string& error) {
  std::error_code ec;
  const fs::path p = fs::path(dir).lexically_normal();
  if (p.has_parent_path() && p.has_filename()) fs::create_directories(p.parent_path(), ec);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    error = "cannot create the cache directory " + dir + ": " + errno_text();
    return nullptr;
  }
  if (std::string why = untrusted_path(dir); !why.empty()) {
    error = "the cache directory " + dir + " cannot be trusted: " + why +
            "; make it private (chmod 700) and your own, or set DDSMC_CACHE_DIR to a directory of yours";
    return nullptr;
  }
  return std::unique_ptr<StepCache>(new StepCache(dir, false));
}

std::unique_ptr<StepCache> StepCache::open_temporary(std::string& error) {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/ddsmc-step-XXXXXX";
  if (!::mkdtemp(templ.data())) {
    error = "cannot create a temporary directory " + templ + ": " + errno_text();
    return nullptr;
  }
  return std::unique_ptr<StepCache>(new StepCache(templ, true));
}

StepCache::~StepCache() {
  std::error_code ec;
  if (temporary_) fs::remove_all(dir_, ec);
}

std::string StepCache::path(const std::string& key, const char* extension) const {
  return dir_ + "/step-" + key + extension;
}

StepCache::Entry StepCache::verify(const std::string& key, std::string& why) const {
  const std::string file = path(key, ".so");
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return Entry::Missing;
    why = errno == ELOOP ? "it is a symbolic link" : "it cannot be read: " + errno_text();
    return Entry::Damaged;
  }
  struct stat st {};
  std::string bytes;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) why = "it is not a regular file";
  else if (st.st_uid != ::geteuid()) why = "it belongs to user id " + std::to_string(st.st_uid);
  else if (st.st_mode & 022) why = "it is writable by others (mode " + mode_text(st.st_mode) + ")";
  else if (!read_all(fd, bytes, kMaxObject + kSeal)) why = "it cannot be read whole";
  else why = seal_problem(key, bytes);
  if (why.empty()) ::futimens(fd, nullptr);  // recently used (eviction)
  ::close(fd);
  return why.empty() ? Entry::Intact : Entry::Damaged;
}

std::optional<std::string> StepCache::make_build_dir(std::string& error) const {
  std::string templ = dir_ + "/build.XXXXXX";
  if (!::mkdtemp(templ.data())) {
    error = "cannot create a build directory in " + dir_ + ": " + errno_text();
    return std::nullopt;
  }
  return templ;
}

void StepCache::remove_build_dir(const std::string& build_dir) {
  std::error_code ec;
  fs::remove_all(build_dir, ec);
}

std::optional<std::string> StepCache::seal(const std::string& built, const std::string& key, std::string& error) {
  std::string bytes;
  const int in = ::open(built.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  const bool read = in >= 0 && read_all(in, bytes, kMaxObject);
  if (in >= 0) ::close(in);
  if (!read) {
    error = "cannot read the compiler's output " + built + (in < 0 ? ": " + errno_text() : " whole");
    return std::nullopt;
  }
  if (std::string why = elf_problem(bytes); !why.empty()) {
    error = "the compiler's output " + built + " is no usable shared object: " + why;
    return std::nullopt;
  }
  const hashing::Fingerprint h = seal_hash(key, bytes);
  const uint64_t length = bytes.size();
  char seal[kSeal];
  std::memcpy(seal, &h.lo, 8);
  std::memcpy(seal + 8, &h.hi, 8);
  std::memcpy(seal + 16, &length, 8);
  std::memcpy(seal + 24, kMagic, sizeof kMagic);
  bytes.append(seal, kSeal);
  const std::string sealed = built + ".sealed";
  const int out = ::open(sealed.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  bool written = out >= 0 && write_all(out, bytes);
  if (out >= 0) written = (::close(out) == 0) && written;
  if (!written) {
    error = "cannot write " + sealed + ": " + errno_text();
    return std::nullopt;
  }
  return sealed;
}

bool StepCache::move_in(const std::string& from, const std::string& name, std::string& error) const {
  if (::rename(from.c_str(), (dir_ + "/" + name).c_str()) == 0) return true;
  error = "cannot move " + from + " to " + dir_ + "/" + name + ": " + errno_text();
  return false;
}

void StepCache::evict(const std::string& keep) const {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> objects;
  const auto now = fs::file_time_type::clock::now();
  const std::string kept = "step-" + keep + ".so";
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    const std::string name = e.path().filename().string();
    const bool leftover = name.rfind("build.", 0) == 0 || name.find(".tmp.") != std::string::npos;
    if (!leftover && (name.rfind("step-", 0) != 0 || e.path().extension() != ".so" || name == kept)) continue;
    const auto t = fs::symlink_status(e.path(), ec).type() == fs::file_type::symlink ? now : e.last_write_time(ec);
    if (ec) continue;
    if (!leftover) objects.emplace_back(t, e.path());
    else if (now - t > std::chrono::hours(24)) fs::remove_all(e.path(), ec);
  }
  if (objects.size() + 1 <= kKeepObjects) return;
  std::sort(objects.begin(), objects.end());
  for (size_t i = 0; i + kKeepObjects < objects.size() + 1; ++i) {
    fs::path p = objects[i].second;
    fs::remove(p, ec);
    for (const char* ext : {".cpp", ".log"}) fs::remove(p.replace_extension(ext), ec);
  }
}

}  // namespace ddsmc::engine
