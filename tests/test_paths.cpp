#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/test_support.hpp"

namespace ddsmc::test {
namespace fs = std::filesystem;

std::string source_path(const std::string& relative) { return std::string(DDSMC_SOURCE_DIR) + "/" + relative; }
std::string ddsmc_binary() { return DDSMC_BINARY; }

std::vector<std::string> example_files() {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(source_path("examples")))
    if (entry.path().extension() == ".d2c") out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string temp_dir() {
  static std::string dir = [] {
    std::string templ = (fs::temp_directory_path() / "ddsmc-test-XXXXXX").string();
    char* made = mkdtemp(templ.data());
    std::string d = made ? made : fs::temp_directory_path().string();
    static struct Cleanup {
      std::string path;
      ~Cleanup() {
        std::error_code ec;
        fs::remove_all(path, ec);
      }
    } cleanup{d};
    return d;
  }();
  return dir;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string temp_file(const std::string& content, const std::string& suffix) {
  static int counter = 0;
  std::string path = temp_dir() + "/f" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + suffix;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

std::string failing_compiler() {
  const std::string path =
      temp_file("#!/bin/sh\n[ \"$1\" = --version ] && { echo broken-cc 1.0; exit 0; }\n"
                "for a; do last=$a; done\necho \"$last:1:1: error: broken-cc: cannot compile\" >&2\nexit 1\n",
                ".sh");
  chmod(path.c_str(), 0755);
  return path;
}

Spawned spawn_ddsmc(const std::vector<std::string>& args, const SpawnOptions& options) {
  return spawn_program(ddsmc_binary(), args, options);
}

Spawned spawn_program(const std::string& program, const std::vector<std::string>& args,
                      const SpawnOptions& options) {
  Spawned s;
  s.out_path = temp_file("", ".out");
  s.err_path = temp_file("", ".err");
  // Everything the child needs is prepared before fork (no allocation after).
  std::string bin = program;
  std::vector<std::string> copy = args;
  std::vector<char*> argv{bin.data()};
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  s.pid = fork();
  if (s.pid == 0) {
    if (options.new_process_group && setpgid(0, 0) != 0) _exit(126);
    if (options.null_stdin) {
      int fd = open("/dev/null", O_RDONLY);
      if (fd < 0 || dup2(fd, STDIN_FILENO) < 0) _exit(126);
      close(fd);
    }
    bool ok = options.stdout_fd >= 0 ? dup2(options.stdout_fd, STDOUT_FILENO) >= 0
                                     : std::freopen(s.out_path.c_str(), "w", stdout) != nullptr;
    ok = ok && std::freopen(s.err_path.c_str(), "w", stderr) != nullptr;
    if (!ok) _exit(126);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (options.address_space_limit) {
      rlimit lim{options.address_space_limit, options.address_space_limit};
      if (setrlimit(RLIMIT_AS, &lim) != 0) _exit(126);
    }
    if (options.file_size_limit) {
      rlimit lim{options.file_size_limit, options.file_size_limit};
      if (setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(126);
    }
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  // Set it from the parent too, so that it holds before wait_for may kill
  // the group (whichever of the two calls comes first wins; the other is a
  // no-op or fails harmlessly once the child has exec'd).
  if (s.pid > 0 && options.new_process_group) setpgid(s.pid, s.pid);
  return s;
}

bool wait_for_text(const std::string& path, const std::string& text, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  do {
    if (read_text(path).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  } while (std::chrono::steady_clock::now() < deadline);
  return false;
}

int wait_for(pid_t pid, double seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) != pid) {
    if (std::chrono::steady_clock::now() > deadline) {
      if (getpgid(pid) == pid) kill(-pid, SIGKILL);  // its own group: descendants too
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -2;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

CliResult run_ddsmc(const std::vector<std::string>& args, double timeout_seconds, const SpawnOptions& options) {
  return run_program(ddsmc_binary(), args, timeout_seconds, options);
}

CliResult run_program(const std::string& program, const std::vector<std::string>& args, double timeout_seconds,
                      const SpawnOptions& options) {
  Spawned s = spawn_program(program, args, options);
  CliResult r;
  r.exit_code = wait_for(s.pid, timeout_seconds);
  r.out = read_text(s.out_path);
  r.err = read_text(s.err_path);
  if (r.exit_code == -2) r.err += "\n[test harness: killed after timeout]";
  return r;
}

std::string summary(const CliResult& r) {
  return "exit code " + std::to_string(r.exit_code) + "\n--- stdout:\n" + r.out.substr(0, 6000) +
         "\n--- stderr:\n" + r.err.substr(0, 6000);
}

bool built_with_address_sanitizer() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

}  // namespace ddsmc::test
