#include "app/output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace ddsmc::app {
namespace {

// One output as a file: its device and inode, and how to name it.
struct FileId {
  dev_t dev;
  ino_t ino;
  std::string name;
};

bool is_dev_null(const struct stat& st) {
  struct stat null {};
  return S_ISCHR(st.st_mode) && ::stat("/dev/null", &null) == 0 && st.st_rdev == null.st_rdev;
}

void add_file_id(int fd, std::string name, std::vector<FileId>& ids) {
  struct stat st {};
  if (::fstat(fd, &st) == 0 && !is_dev_null(st)) ids.push_back({st.st_dev, st.st_ino, std::move(name)});
}

constexpr const char* kTextName = "standard output (where the text goes)";

// Two outputs that are one file (the same path, a link, /dev/stdout beside
// "-" or beside the text on standard output) would interleave their
// writes: the message saying which, or "". `fds`: the files opened, in
// the order of `paths`. /dev/null may take any number of them.
std::string same_file(const std::vector<std::optional<std::string>>& paths, const std::vector<int>& fds) {
  std::vector<FileId> ids;
  size_t next = 0;
  bool standard_taken = false;
  for (const auto& p : paths) {
    if (!p) continue;
    if (*p == "-") {
      standard_taken = true;
      add_file_id(STDOUT_FILENO, "standard output (-)", ids);
    } else {
      add_file_id(fds[next++], *p, ids);
    }
  }
  // Unless an output takes it, standard output carries the command's text.
  if (!standard_taken) add_file_id(STDOUT_FILENO, kTextName, ids);
  for (size_t i = 0; i < ids.size(); ++i)
    for (size_t j = i + 1; j < ids.size(); ++j)
      if (ids[i].dev == ids[j].dev && ids[i].ino == ids[j].ino)
        return ids[i].name + " and " + ids[j].name + " are the same file: each output needs a file of its own" +
               (ids[j].name == kTextName ? std::string("; --json - or --trace - puts it on standard output and the "
                                                       "text on standard error")
                                         : std::string());
  return {};
}

}  // namespace

std::vector<Output*> Output::open_all(const std::vector<std::optional<std::string>>& paths,
                                      std::vector<std::unique_ptr<Output>>& files, std::string& error) {
  // First open every file without emptying it, then empty them all: a bad
  // second path must not have destroyed the file named first.
  struct Opened {
    int fd;
    const std::string* path;
    bool created;
  };
  std::vector<Opened> opened;
  auto undo = [&] {
    for (const auto& o : opened) {
      ::close(o.fd);
      if (o.created) ::unlink(o.path->c_str());
    }
  };
  for (const auto& p : paths) {
    if (!p || *p == "-") continue;
    struct stat st {};
    bool existed = ::stat(p->c_str(), &st) == 0;
    int fd = ::open(p->c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
      error = "cannot write " + *p + ": " + std::strerror(errno);
      undo();
      return {};
    }
    opened.push_back({fd, &*p, !existed});
  }
  std::vector<int> fds;
  for (const auto& o : opened) fds.push_back(o.fd);
  if (std::string clash = same_file(paths, fds); !clash.empty()) {
    error = clash;
    undo();
    return {};
  }
  std::vector<Output*> out;
  size_t next = 0;
  for (const auto& p : paths) {
    if (!p) {
      out.push_back(nullptr);
      continue;
    }
    if (*p == "-") {
      out.push_back(&standard());
      continue;
    }
    int fd = opened[next++].fd;
    struct stat st {};
    errno = 0;
    bool emptied = ::fstat(fd, &st) == 0 && (!S_ISREG(st.st_mode) || ::ftruncate(fd, 0) == 0);
    std::FILE* f = emptied ? ::fdopen(fd, "w") : nullptr;
    if (!f) ::close(fd);
    files.push_back(std::unique_ptr<Output>(new Output(f, *p)));
    if (!f) files.back()->error_ = errno ? errno : EIO;
    out.push_back(files.back().get());
  }
  return out;
}

Output& Output::standard() {
  static Output out(stdout, "standard output");
  return out;
}

Output& Output::standard_error() {
  static Output err(stderr, "standard error");
  return err;
}

Output::~Output() {
  if (file_ && file_ != stdout && file_ != stderr) std::fclose(file_);
}

void Output::write(std::string_view text) noexcept {
  if (error_ || text.empty() || !file_) return;
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) error_ = errno ? errno : EIO;
}

bool Output::finish() noexcept {
  if (!file_) return ok();
  errno = 0;
  if (std::fflush(file_) != 0 && !error_) error_ = errno ? errno : EIO;
  if (std::ferror(file_) && !error_) error_ = EIO;
  errno = 0;
  if (std::fclose(file_) != 0 && !error_) error_ = errno ? errno : EIO;
  file_ = nullptr;
  return ok();
}

bool Output::deliver() noexcept {
  if (finish()) return true;
  std::fprintf(stderr, "ddsmc: cannot write %s: %s; the result could not be delivered\n", name_.c_str(),
               std::strerror(error_));
  return false;
}

std::string dump_json(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace ddsmc::app
