#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
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

CliResult run_ddsmc(const std::vector<std::string>& args, double timeout_seconds) {
  std::string out_path = temp_file("", ".out"), err_path = temp_file("", ".err");
  pid_t pid = fork();
  if (pid == 0) {
    FILE* o = freopen(out_path.c_str(), "w", stdout);
    FILE* e = freopen(err_path.c_str(), "w", stderr);
    (void)o;
    (void)e;
    std::vector<char*> argv;
    std::string bin = ddsmc_binary();
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  CliResult r;
  int status = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  while (true) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.exit_code = -2;  // timed out: a hang is a failure
      r.out = read_text(out_path);
      r.err = read_text(err_path) + "\n[test harness: killed after timeout]";
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text(out_path);
  r.err = read_text(err_path);
  return r;
}

}  // namespace ddsmc::test
