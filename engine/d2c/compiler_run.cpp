#include "engine/d2c/compiler_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>

namespace ddsmc::engine {
namespace {

constexpr size_t kMaxOutput = 64 * 1024;

std::atomic<pid_t> g_group{0};  // the running compiler's process group, 0: none

// argv[0] resolved on PATH (before fork: the child only calls execv).
std::string resolve(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t at = 0;
  while (at <= dirs.size()) {
    size_t end = dirs.find(':', at);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(at, end - at);
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    at = end + 1;
  }
  return {};
}

struct ChildSetup {
  const char* path;
  char* const* argv;
  pid_t parent;
  rlim_t cpu_s;    // 0: none
  rlim_t memory;   // 0: none
  int out_fd;      // the capture pipe's write end
  int error_fd;    // CLOEXEC pipe: errno of a failed exec
};

// In the child, between fork and exec: async-signal-safe calls only.
[[noreturn]] void become_compiler(const ChildSetup& c) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != c.parent) ::_exit(127);  // ddsmc already gone
  if (c.cpu_s) {
    const rlimit cpu{c.cpu_s, c.cpu_s + 2};
    ::setrlimit(RLIMIT_CPU, &cpu);
  }
  if (c.memory) {
    const rlimit as{c.memory, c.memory};
    ::setrlimit(RLIMIT_AS, &as);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd >= 0) ::dup2(null_fd, 0);
  ::dup2(c.out_fd, 1);
  ::dup2(c.out_fd, 2);
  ::execv(c.path, c.argv);
  const int e = errno;
  ssize_t w = ::write(c.error_fd, &e, sizeof e);
  (void)w;
  ::_exit(127);
}

// The errno a failed exec reported through `fd`, 0 when exec succeeded.
int exec_error(int fd) {
  int e = 0;
  ssize_t n;
  while ((n = ::read(fd, &e, sizeof e)) < 0 && errno == EINTR) {
  }
  return n == sizeof e ? e : 0;
}

// Reads what is there of `fd` into `out` (up to kMaxOutput kept); false at EOF.
bool drain(int fd, std::string& out, int wait_ms) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, wait_ms) <= 0) return true;
  char buf[4096];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return false;
  if (n > 0 && out.size() < kMaxOutput) out.append(buf, std::min(static_cast<size_t>(n), kMaxOutput - out.size()));
  return true;
}

// Waits for the compiler `pid` (its output on `fd`) within the limits.
CompilerRun supervise(pid_t pid, int fd, const CompilerLimits& limits) {
  CompilerRun run;
  const auto start = std::chrono::steady_clock::now();
  bool open = true, reaped = false;
  int status = 0;
  double reaped_at = 0;
  for (;;) {
    if (open) open = drain(fd, run.output, 50);
    else ::usleep(20000);
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!reaped && ::waitpid(pid, &status, WNOHANG) == pid) reaped = true, reaped_at = waited;
    if (reaped && (!open || waited - reaped_at > 2)) {  // a child of the driver kept the output open
      if (open) ::kill(-pid, SIGKILL);
      break;
    }
    const bool stop = limits.stop && limits.stop->load() != 0;
    if (stop || (limits.timeout_s > 0 && waited > limits.timeout_s)) {
      ::kill(-pid, SIGKILL);
      run.end = stop ? CompilerRun::End::Stopped : CompilerRun::End::TimedOut;
      break;
    }
  }
  while (!reaped && ::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (run.end == CompilerRun::End::NotStarted) {
    run.end = WIFEXITED(status) ? CompilerRun::End::Exited : CompilerRun::End::Signalled;
    run.code = WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status);
  }
  return run;
}

}  // namespace

CompilerRun run_compiler(const std::vector<std::string>& args, const CompilerLimits& limits) {
  CompilerRun run;
  const std::string path = resolve(args.at(0));
  if (path.empty()) {
    run.code = ENOENT;
    return run;
  }
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return run.code = errno, run;
  if (::pipe2(err, O_CLOEXEC) != 0) {
    run.code = errno;
    ::close(out[0]), ::close(out[1]);
    return run;
  }
  const rlim_t cpu = limits.timeout_s > 0 ? static_cast<rlim_t>(std::ceil(limits.timeout_s)) + 1 : 0;
  const ChildSetup setup{path.c_str(), argv.data(), ::getpid(), cpu, limits.memory_bytes, out[1], err[1]};
  const pid_t pid = ::fork();
  if (pid == 0) become_compiler(setup);
  ::close(out[1]), ::close(err[1]);
  if (pid < 0) {
    run.code = errno;
    ::close(out[0]), ::close(err[0]);
    return run;
  }
  ::setpgid(pid, pid);  // (also done by the child: whichever comes first)
  g_group.store(pid);
  if (const int e = exec_error(err[0])) {
    ::close(out[0]), ::close(err[0]);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    g_group.store(0);
    run.code = e;
    return run;
  }
  ::close(err[0]);
  run = supervise(pid, out[0], limits);
  ::close(out[0]);
  g_group.store(0);
  return run;
}

void kill_running_compiler() noexcept {
  const pid_t g = g_group.load();
  if (g > 0) ::kill(-g, SIGKILL);
}

namespace {

bool has(const std::string& text, const char* what) { return text.find(what) != std::string::npos; }

// The first line of `output` that contains `what` (trimmed), or "".
std::string line_with(const std::string& output, const char* what) {
  const size_t at = output.find(what);
  if (at == std::string::npos) return {};
  const size_t begin = output.rfind('\n', at) == std::string::npos ? 0 : output.rfind('\n', at) + 1;
  std::string line = output.substr(begin, output.find('\n', at) - begin);
  if (line.size() > 240) line = line.substr(0, 240) + "...";
  return line;
}

std::string quoted_line(const std::string& output, const char* what) {
  const std::string line = line_with(output, what);
  return line.empty() ? std::string() : ": " + line;
}

CompileFailure explain_exit(const CompilerRun& run, const std::string& compiler, const std::string& source,
                            const CompilerLimits& limits) {
  const std::string& out = run.output;
  for (const char* oom : {"memory exhausted", "out of memory", "Cannot allocate memory", "std::bad_alloc",
                          "failed to map segment", "virtual memory exhausted"})
    if (has(out, oom))
      return {"the compiler ran out of memory" +
                  (limits.memory_bytes ? " (it may use at most the --memory limit, " +
                                             std::to_string(limits.memory_bytes >> 20) + " MiB)"
                                       : std::string()),
              false};
  // A compiler that crashes under an address-space limit most often could
  // not get memory (a stack or a mapping it could not grow).
  for (const char* crash : {"internal compiler error", "Segmentation fault", "Killed signal"})
    if (limits.memory_bytes && has(out, crash))
      return {"the compiler crashed within the memory limit of " + std::to_string(limits.memory_bytes >> 20) +
                  " MiB (--memory bounds it)" + quoted_line(out, crash),
              false};
  for (const char* disk : {"No space left on device", "Disk quota exceeded", "File too large", "File size limit"})
    if (has(out, disk)) return {"the compiler could not write its output" + quoted_line(out, disk), false};
  for (const char* tool : {"cannot execute", "error trying to exec", "unable to execute", "cannot find 'ld'",
                           "cannot find 'as'", "collect2: fatal error", "linker command failed"})
    if (has(out, tool)) return {"the compiler's toolchain is incomplete" + quoted_line(out, tool), false};
  for (const char* limit : {"bracket nesting level exceeded", "instantiation depth exceeds", "program too complex",
                            "too many errors"})
    if (has(out, limit))
      return {"the generated step is beyond a limit of the compiler" + quoted_line(out, limit), false};
  if (has(out, (source + ":").c_str()) && has(out, "error"))
    return {"ddsmc bug: the generated step function " + source + " did not compile (" + compiler + " exited with " +
                std::to_string(run.code) + quoted_line(out, "error") + ")",
            true};
  return {compiler + " failed (exit " + std::to_string(run.code) + ")" + quoted_line(out, "error"), false};
}

}  // namespace

CompileFailure explain_compile_failure(const CompilerRun& run, const std::string& compiler, const std::string& source,
                                       const CompilerLimits& limits) {
  switch (run.end) {
    case CompilerRun::End::NotStarted:
      return {"cannot run the compiler " + compiler + ": " + std::strerror(run.code), false};
    case CompilerRun::End::TimedOut:
      return {"compiling the step took longer than " + std::to_string(static_cast<long>(limits.timeout_s)) +
                  " s (DDSMC_COMPILE_TIMEOUT); the compiler was stopped",
              false};
    case CompilerRun::End::Stopped:
      return {"compiling the step was interrupted", false};
    case CompilerRun::End::Signalled:
      if (run.code == SIGXCPU) return {"the compiler used up its CPU time limit and was stopped", false};
      return {"the compiler was killed by signal " + std::to_string(run.code) + " (" + strsignal(run.code) +
                  (run.code == SIGKILL ? "; the out-of-memory killer, perhaps" : "") + ")",
              false};
    case CompilerRun::End::Exited:
      break;
  }
  return explain_exit(run, compiler, source, limits);
}

}  // namespace ddsmc::engine
