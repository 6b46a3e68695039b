#include "engine/d2c/compiled_step.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>

#include "engine/d2c/codegen.hpp"
#include "engine/d2c/codegen_abi.hpp"
#include "engine/d2c/compiler_run.hpp"
#include "engine/d2c/step_cache.hpp"
#include "hashing/fingerprint.hpp"

#ifndef DDSMC_CXX_COMPILER
#define DDSMC_CXX_COMPILER "c++"
#endif

namespace ddsmc::engine {
namespace {

// The compile command (hashed with the source: another compiler or other
// flags make another object).
const char* const kFlags[] = {"-std=c++17", "-O2", "-shared", "-fPIC", "-w"};
constexpr double kDefaultTimeout = 60;
constexpr double kVersionTimeout = 20;

std::string hex128(const hashing::Fingerprint& f) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(f.hi),
                static_cast<unsigned long long>(f.lo));
  return buf;
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// The cache directory the options and the environment name; "" when there
// is none (no home directory): then nothing is cached.
std::string cache_dir(const CompiledStepOptions& o) {
  if (!o.cache_dir.empty()) return o.cache_dir;
  if (const char* d = std::getenv("DDSMC_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/ddsmc";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/ddsmc";
  if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_dir && *pw->pw_dir)
    return std::string(pw->pw_dir) + "/.cache/ddsmc";
  return {};
}

CompilerLimits limits_of(const CompiledStepOptions& o) {
  CompilerLimits l;
  l.timeout_s = o.timeout_s;
  if (l.timeout_s < 0) {
    const char* t = std::getenv("DDSMC_COMPILE_TIMEOUT");
    char* end = nullptr;
    const double v = t && *t ? std::strtod(t, &end) : -1;
    l.timeout_s = v >= 0 && end && *end == '\0' ? v : kDefaultTimeout;
  }
  l.memory_bytes = o.memory_bytes;
  l.stop = o.stop;
  return l;
}

// What `compiler --version` prints, which goes into the cache key (another
// compiler version under the same name makes another object); nullopt with
// `why` when the compiler cannot be run or does not answer. Asked once per
// compiler and process when it answers.
std::optional<std::string> compiler_version(const std::string& compiler, CompilerLimits limits, std::string& why) {
  static std::mutex mu;
  static std::map<std::string, std::string> known;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = known.find(compiler); it != known.end()) return it->second;
  if (limits.timeout_s <= 0 || limits.timeout_s > kVersionTimeout) limits.timeout_s = kVersionTimeout;
  const CompilerRun run = run_compiler({compiler, "--version"}, limits);
  if (run.ok()) return known[compiler] = run.output;
  switch (run.end) {
    case CompilerRun::End::NotStarted: why = compiler + " cannot be run (" + std::strerror(run.code) + ")"; break;
    case CompilerRun::End::TimedOut:
      why = compiler + " --version did not answer within " + std::to_string(static_cast<int>(limits.timeout_s)) + " s";
      break;
    case CompilerRun::End::Exited: why = compiler + " --version exited with " + std::to_string(run.code); break;
    case CompilerRun::End::Signalled:
      why = compiler + " --version was killed by signal " + std::to_string(run.code);
      break;
    case CompilerRun::End::Stopped: why = compiler + " --version was interrupted"; break;
  }
  return std::nullopt;  // (asked again next time: a limit or a signal may have been the cause)
}

// Creates `path` (never following a symlink, never reusing a file) with `text`.
bool write_new(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  std::string_view rest = text;
  while (!rest.empty()) {
    const ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    rest.remove_prefix(static_cast<size_t>(n));
  }
  return ::close(fd) == 0 && rest.empty();
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) text.replace(at, from.size(), to);
}

using OpenFn = std::shared_ptr<CompiledStepLibrary> (*)(const std::string& path, const std::string& fp,
                                                        std::string& error);

// One compile of `source` into the cache under `key`, in a build directory
// of its own; `open` loads and checks the result before it enters the cache.
struct Build {
  OpenFn open;
  const StepCache& cache;
  const std::string& key;
  const std::string& source;
  const std::string& fp;
  const std::string& compiler;
  const CompilerLimits& limits;

  // The loaded object, now in the cache; or null with `error`.
  std::shared_ptr<CompiledStepLibrary> run(std::string& error) const {
    const std::optional<std::string> dir = cache.make_build_dir(error);
    if (!dir) return nullptr;
    auto lib = compile_and_load(*dir, error);
    StepCache::remove_build_dir(*dir);
    return lib;
  }

 private:
  std::shared_ptr<CompiledStepLibrary> compile_and_load(const std::string& dir, std::string& error) const {
    const std::string src = dir + "/step.cpp", obj = dir + "/step.so";
    if (!write_new(src, source)) {
      error = "cannot write " + src + ": " + std::strerror(errno);
      return nullptr;
    }
    std::vector<std::string> args{compiler};
    for (const char* f : kFlags) args.emplace_back(f);
    args.insert(args.end(), {"-o", obj, src});
    const CompilerRun run = run_compiler(args, limits);
    std::string ignored;
    cache.move_in(src, "step-" + key + ".cpp", ignored);  // kept for the curious, and for the messages
    const std::string shown = cache.path(key, ".cpp");
    if (!run.ok()) {
      error = fail(run, src, shown);
      return nullptr;
    }
    const std::optional<std::string> sealed = StepCache::seal(obj, key, error);
    if (!sealed) return nullptr;
    auto lib = open(*sealed, fp, error);
    if (!lib) error = "the compiler's output for " + shown + " cannot be used: " + error;
    if (!lib || !cache.move_in(*sealed, "step-" + key + ".so", error)) return nullptr;
    return lib;
  }

  // The message of a failed compile (with the log kept beside the source).
  std::string fail(const CompilerRun& run, const std::string& src, const std::string& shown) const {
    CompileFailure f = explain_compile_failure(run, compiler, src, limits);
    replace_all(f.message, src, shown);
    if (run.output.empty()) return f.message;
    std::string output = run.output, ignored;
    replace_all(output, src, shown);
    const std::string log = src + ".log";
    if (!write_new(log, output) || !cache.move_in(log, "step-" + key + ".log", ignored)) return f.message;
    return f.message + "; its output is in " + cache.path(key, ".log");
  }
};

std::string load_problem(const std::string& path) {
  std::string why = dlerror();
  struct statvfs fs {};
  const std::string dir = path.substr(0, path.rfind('/'));
  if (::statvfs(dir.c_str(), &fs) == 0 && (fs.f_flag & ST_NOEXEC))
    why = dir + " is on a file system mounted noexec, where no object can be loaded: set DDSMC_CACHE_DIR to a "
                "directory elsewhere";
  return why;
}

}  // namespace

std::shared_ptr<CompiledStepLibrary> CompiledStepLibrary::open(const std::string& path, const std::string& fp,
                                                               std::string& error) {
  std::shared_ptr<CompiledStepLibrary> lib(new CompiledStepLibrary());
  lib->handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib->handle_) {
    error = "cannot load " + path + ": " + load_problem(path);
    return nullptr;
  }
  auto sym = [&](const char* name) { return dlsym(lib->handle_, name); };
  auto abi = reinterpret_cast<uint32_t (*)()>(sym("ddsmc_gen_abi_version"));
  auto made_from = reinterpret_cast<const char* (*)()>(sym("ddsmc_gen_source_fingerprint"));
  lib->new_ = reinterpret_cast<void* (*)()>(sym("ddsmc_gen_new"));
  lib->free_ = reinterpret_cast<void (*)(void*)>(sym("ddsmc_gen_free"));
  lib->step_ = reinterpret_cast<void (*)(void*, const void*, const void*)>(sym("ddsmc_gen_step"));
  if (!abi || !made_from || !lib->new_ || !lib->free_ || !lib->step_ || abi() != 2) {
    error = path + " lacks the step ABI v2";
    return nullptr;
  }
  const char* made = made_from();
  if (!made || fp != std::string_view(made, strnlen(made, 64))) {
    error = path + " was built from another source than this model's";
    return nullptr;
  }
  return lib;
}

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
  if (opts.only_if_profitable && (gen.deepest_rule > kMaxProfitableDepth || gen.source.size() > kMaxProfitableSource)) {
    res.error = gen.deepest_rule > kMaxProfitableDepth
                    ? "unprofitable: a rule has " + std::to_string(gen.deepest_rule) +
                          " body items; compiling its join would take longer than interpreting it (at most " +
                          std::to_string(kMaxProfitableDepth)
                    : "unprofitable: the generated step has " + std::to_string(gen.source.size() >> 10) +
                          " KiB; compiling it would take longer than interpreting it (at most " +
                          std::to_string(kMaxProfitableSource >> 10) + " KiB";
    res.error += " for --backend auto; --backend compiled compiles it anyway)";
    res.unprofitable = true;
    return res;
  }
  // The source proves where an object came from: it exports its fingerprint.
  const std::string fp = hex128(hashing::fingerprint(gen.source));
  gen.source += "\nextern \"C\" const char* ddsmc_gen_source_fingerprint() { return \"" + fp + "\"; }\n";
  const CompilerLimits limits = limits_of(opts);
  const std::string compiler = !opts.compiler.empty() ? opts.compiler : env_or("DDSMC_CXX", DDSMC_CXX_COMPILER);
  std::string why;
  const std::optional<std::string> version = compiler_version(compiler, limits, why);
  if (!version) {
    res.error = "no compiler: " + why + " (set DDSMC_CXX to a C++17 compiler)";
    res.no_compiler = true;
    return res;
  }
  // The object is keyed by everything that makes it: the generated source
  // (which holds the model's rules, layout and the ABI version), the
  // compiler's identity and version, and the flags.
  std::string command = compiler + "\n" + *version;
  for (const char* f : kFlags) command += std::string(" ") + f;
  const std::string key = hex128(hashing::fingerprint(gen.source + '\0' + command));
  const std::string dir = cache_dir(opts);
  std::unique_ptr<StepCache> cache = dir.empty() ? StepCache::open_temporary(res.error) : StepCache::open(dir, res.error);
  if (!cache) return res;
  if (dir.empty()) res.warnings.push_back("no home directory to cache the compiled step in: compiled for this run only");

  std::shared_ptr<CompiledStepLibrary> lib;
  const StepCache::Entry entry = cache->verify(key, why);
  if (entry == StepCache::Entry::Intact) {
    lib = open(cache->path(key, ".so"), fp, why);
    if (lib) lib->from_cache_ = true;
  }
  if (!lib && entry != StepCache::Entry::Missing)  // damaged, or intact but not loadable
    res.warnings.push_back("the cached step " + cache->path(key, ".so") + " is not used: " + why +
                           "; compiling it again");
  if (!lib && opts.cached_only) {
    res.error = "not cached";
    res.not_cached = true;
    return res;
  }
  if (!lib) {
    lib = Build{&CompiledStepLibrary::open, *cache, key, gen.source, fp, compiler, limits}.run(res.error);
    if (!lib) return res;
    lib->compile_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  lib->source_path_ = cache->path(key, ".cpp");
  lib->object_path_ = cache->path(key, ".so");
  if (!cache->temporary()) cache->evict(key);  // after the load: never the object just used
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
