// Helpers shared by the test suites: where the sources are, and running the
// real ddsmc binary the way a user does (exit code, stdout, stderr).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ddsmc::test {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string source_path(const std::string& relative);  // DDSMC_SOURCE_DIR/relative
// The bundled examples (examples/*.d2c), full paths, sorted.
std::vector<std::string> example_files();
std::string ddsmc_binary();

// How the child runs.
struct SpawnOptions {
  uint64_t address_space_limit = 0;  // RLIMIT_AS set in the child before exec (0: none)
  int stdout_fd = -1;                // the child's stdout (a pipe, say); -1: a scratch file
  bool new_process_group = false;    // the child leads a process group of its own (setpgid), so
                                     // wait_for's timeout kill reaches its descendants too
  bool null_stdin = false;           // the child's stdin is /dev/null
  uint64_t file_size_limit = 0;      // RLIMIT_FSIZE (bytes) set in the child before exec (0: none), as ulimit -f
};

// The ddsmc binary running in the background, stdout/stderr to scratch files.
struct Spawned {
  pid_t pid = -1;
  std::string out_path, err_path;
};
Spawned spawn_ddsmc(const std::vector<std::string>& args, const SpawnOptions& options = {});
// Any program (a path, not looked up in PATH), argv[0] = program.
Spawned spawn_program(const std::string& program, const std::vector<std::string>& args,
                      const SpawnOptions& options = {});
// Waits at most `seconds`: the exit code, 128 + the signal that ended it, or
// -2 (still running: then killed with SIGKILL, a hang; when the child leads
// its own process group, the whole group is killed).
int wait_for(pid_t pid, double seconds);

// Waits at most `seconds` until the file at `path` contains `text`.
bool wait_for_text(const std::string& path, const std::string& text, double seconds);
// What `check` prints on stderr once it has chosen its step evaluator
// (--backend auto, the default), just before it explores: a timed signal
// sent after it hits the exploration, not the compile of the model's step.
inline constexpr const char* kBackendChosen = "ddsmc: backend ";

// "exit code N", then stdout and stderr (each cut at 6000 bytes), for messages.
std::string summary(const CliResult& r);

// Runs the binary to the end (at most `timeout_seconds`, exit_code -2 after).
CliResult run_ddsmc(const std::vector<std::string>& args, double timeout_seconds = 300,
                    const SpawnOptions& options = {});
// Runs any program to the end the same way (mpiexec, say).
CliResult run_program(const std::string& program, const std::vector<std::string>& args,
                      double timeout_seconds = 300, const SpawnOptions& options = {});
// True when the tests (and so the binary) are built with ASan or TSan, which
// reserve terabytes of address space: address-space limits mean nothing then.
bool built_with_address_sanitizer();
// A scratch file with `content`, removed at process exit; returns its path.
std::string temp_file(const std::string& content, const std::string& suffix = ".d2c");
std::string temp_dir();
// A stand-in C++ compiler for the compiled step's failure paths: it answers
// --version (so it is found) and fails to compile anything, with an error
// that points into the source (as a compiler that rejects generated code).
std::string failing_compiler();
std::string read_text(const std::string& path);

}  // namespace ddsmc::test
