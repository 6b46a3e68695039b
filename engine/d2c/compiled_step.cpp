#include "engine/d2c/compiled_step.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include "engine/d2c/codegen.hpp"
#include "engine/d2c/codegen_abi.hpp"

extern char** environ;

#ifndef DDSMC_CXX_COMPILER
#define DDSMC_CXX_COMPILER "c++"
#endif

namespace ddsmc::engine {
namespace {

namespace fs = std::filesystem;

// The compile command (hashed with the source: another compiler or other
// flags make another object).
const char* const kFlags[] = {"-std=c++17", "-O2", "-shared", "-fPIC", "-w"};

uint64_t fnv1a(const std::string& s, uint64_t h = 0xcbf29ce484222325ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

std::string default_cache_dir() {
  if (const char* d = std::getenv("DDSMC_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/ddsmc";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/ddsmc";
  return "/tmp/ddsmc-cache-" + std::to_string(getuid());
}

// The first 64 KiB of a file (a compiler log).
std::string read_small(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text(64 * 1024, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

// A temporary name no other process (on any host sharing the cache) uses.
std::string temporary(const std::string& path) {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  return path + ".tmp." + host + "." + std::to_string(getpid());
}

// Writes `text` to `path` through a temporary name and a rename, so that a
// concurrent process never sees half a file.
bool write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = temporary(path);
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out.flush()) return false;
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  return !ec;
}

// Runs `argv` with stdout and stderr into the file `log` (or, with `output`
// set, into *output through a pipe); returns its exit status (-1 if it could
// not be started).
int run(const std::vector<std::string>& args, const std::string& log, std::string* output = nullptr) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int pipefd[2] = {-1, -1};
  if (output && pipe(pipefd) != 0) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (output) {
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
    posix_spawn_file_actions_addclose(&fa, pipefd[0]);
    posix_spawn_file_actions_addclose(&fa, pipefd[1]);
  } else {
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, args[0].c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (output) {
    close(pipefd[1]);
    char buf[4096];
    ssize_t n;
    while (rc == 0 && ((n = read(pipefd[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)))
      if (n > 0) output->append(buf, static_cast<size_t>(n));
    close(pipefd[0]);
  }
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// What `compiler --version` prints, which goes into the cache key (another
// compiler version under the same name makes another object); nullopt when
// the compiler cannot be run at all. Asked once per compiler and process.
std::optional<std::string> compiler_version(const std::string& compiler) {
  static std::mutex mu;
  static std::map<std::string, std::optional<std::string>> known;
  std::lock_guard<std::mutex> lock(mu);
  auto it = known.find(compiler);
  if (it != known.end()) return it->second;
  std::string out;
  std::optional<std::string> v;
  if (run({compiler, "--version"}, "", &out) == 0) v = out;
  return known[compiler] = v;
}

// Keeps the cache to kKeepObjects objects: the least recently used ones
// (by modification time, which a cache hit refreshes) go with their source
// and log, and so do temporary files left by a killed compile. Best effort:
// another process may be removing the same files.
constexpr size_t kKeepObjects = 256;

void evict(const std::string& dir) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> objects;
  const auto now = fs::file_time_type::clock::now();
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("step-", 0) != 0) continue;
    const auto t = e.last_write_time(ec);
    if (ec) continue;
    if (name.find(".tmp.") != std::string::npos) {
      if (now - t > std::chrono::hours(24)) fs::remove(e.path(), ec);
    } else if (e.path().extension() == ".so") {
      objects.emplace_back(t, e.path());
    }
  }
  if (objects.size() <= kKeepObjects) return;
  std::sort(objects.begin(), objects.end());
  for (size_t i = 0; i + kKeepObjects < objects.size(); ++i) {
    fs::path p = objects[i].second;
    fs::remove(p, ec);
    p.replace_extension(".cpp");
    fs::remove(p, ec);
    fs::remove(p.string() + ".log", ec);
  }
}


}  // namespace

CompiledStepLibrary::Loaded CompiledStepLibrary::load(const CompiledModel& cm, const CompiledStepOptions& opts) {
  Loaded res;
  // compile_seconds(): generating and compiling, from here to the object in
  // the cache (0 when it was there already).
  const auto t0 = std::chrono::steady_clock::now();
  GeneratedStep gen = generate_step_source(cm);
  if (!gen.ok) {
    res.error = gen.reason;
    return res;
  }
  const std::string compiler = !opts.compiler.empty() ? opts.compiler : env_or("DDSMC_CXX", DDSMC_CXX_COMPILER);
  const std::optional<std::string> version = compiler_version(compiler);
  if (!version) {
    res.error = "no compiler: " + compiler + " cannot be run (set DDSMC_CXX to a C++17 compiler)";
    res.no_compiler = true;
    return res;
  }
  // The object is keyed by everything that makes it: the generated source
  // (which holds the model's rules, layout and the ABI version), the
  // compiler's identity and version, and the flags.
  std::string command = compiler + "\n" + *version;
  for (const char* f : kFlags) command += std::string(" ") + f;
  const std::string key = hex(fnv1a(gen.source, fnv1a(command)));
  const std::string dir = opts.cache_dir.empty() ? default_cache_dir() : opts.cache_dir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    res.error = "cannot create the cache directory " + dir + ": " + ec.message();
    return res;
  }
  std::shared_ptr<CompiledStepLibrary> lib(new CompiledStepLibrary());
  lib->source_path_ = dir + "/step-" + key + ".cpp";
  lib->object_path_ = dir + "/step-" + key + ".so";
  if (fs::exists(lib->object_path_)) {
    lib->from_cache_ = true;
    fs::last_write_time(lib->object_path_, fs::file_time_type::clock::now(), ec);  // recently used
  } else {
    if (!write_atomically(lib->source_path_, gen.source)) {
      res.error = "cannot write " + lib->source_path_;
      return res;
    }
    const std::string log = lib->source_path_ + ".log";
    const std::string tmp = temporary(lib->object_path_);
    std::vector<std::string> args{compiler};
    for (const char* f : kFlags) args.emplace_back(f);
    args.insert(args.end(), {"-o", tmp, lib->source_path_});
    int rc = run(args, log);
    if (rc != 0) {
      fs::remove(tmp, ec);
      // Out of memory (a memory limit the compiler inherited, say) is not
      // a fault of the generated code.
      if (rc > 128) {  // killed: Ctrl-C reaches the compiler too, or the OOM killer
        res.error = "the compiler was killed by signal " + std::to_string(rc - 128) + " while compiling " +
                    lib->source_path_;
        return res;
      }
      const std::string output = read_small(log);
      for (const char* oom : {"memory exhausted", "out of memory", "Cannot allocate memory", "std::bad_alloc",
                              "failed to map segment"})
        if (output.find(oom) != std::string::npos) {
          res.error = "the compiler ran out of memory on " + lib->source_path_ + " (its output is in " + log + ")";
          return res;
        }
      res.error = "ddsmc bug: the generated step function " + lib->source_path_ + " did not compile (" + compiler +
                  (rc < 0 ? " could not be started" : " exited with " + std::to_string(rc)) +
                  "; its output is in " + log + ")";
      return res;
    }
    fs::remove(log, ec);  // empty, or warnings that -w silenced
    fs::rename(tmp, lib->object_path_, ec);
    if (ec) {
      res.error = "cannot rename " + tmp + ": " + ec.message();
      return res;
    }
    lib->compile_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    evict(dir);
  }
  lib->handle_ = dlopen(lib->object_path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib->handle_) {
    res.error = "ddsmc bug: cannot load " + lib->object_path_ + " (from " + lib->source_path_ + "): " + dlerror();
    return res;
  }
  auto sym = [&](const char* name) { return dlsym(lib->handle_, name); };
  auto abi = reinterpret_cast<uint32_t (*)()>(sym("ddsmc_gen_abi_version"));
  lib->new_ = reinterpret_cast<void* (*)()>(sym("ddsmc_gen_new"));
  lib->free_ = reinterpret_cast<void (*)(void*)>(sym("ddsmc_gen_free"));
  lib->step_ = reinterpret_cast<void (*)(void*, const void*, const void*)>(sym("ddsmc_gen_step"));
  if (!abi || !lib->new_ || !lib->free_ || !lib->step_ || abi() != 1) {
    res.error = "ddsmc bug: " + lib->object_path_ + " (from " + lib->source_path_ + ") lacks the step ABI v1";
    return res;
  }
  res.library = std::move(lib);
  return res;
}

CompiledStepLibrary::~CompiledStepLibrary() {
  if (handle_) dlclose(handle_);
}

CompiledStepEvaluator::CompiledStepEvaluator(std::shared_ptr<const CompiledStepLibrary> lib)
    : lib_(std::move(lib)), state_(lib_->new_()) {}

CompiledStepEvaluator::~CompiledStepEvaluator() {
  if (state_) lib_->free_(state_);
}

void CompiledStepEvaluator::step(const StepInput& in, ddsmc_gen::Hooks& hooks) {
  ddsmc_gen::Input gi;
  gi.node = in.node;
  gi.msg_src = in.msg_src;
  gi.db = in.db->data();
  gi.db_words = in.db->size();
  gi.msg = in.msg;
  gi.input = in.input ? in.input->data() : nullptr;
  gi.input_words = in.input ? in.input->size() : 0;
  hooks.poll = [](void* c) { static_cast<Cancellation*>(c)->poll(); };
  hooks.poll_ctx = cancel_;
  lib_->step_(state_, &gi, &hooks);
}

}  // namespace ddsmc::engine
