// Running the system C++ compiler for the compiled step (compiled_step.hpp)
// under limits, and saying what went wrong in the user's terms.
//
// Contract of run_compiler():
// - the compiler runs in a process group of its own, with stdin from
//   /dev/null and stdout+stderr captured (the first 64 KiB);
// - it is stopped (SIGKILL to the whole group: the driver, cc1plus, as, ld)
//   when `timeout_s` of wall time pass, or when `*stop` becomes nonzero;
// - it dies with ddsmc: SIGKILL when the thread that started it ends
//   (PR_SET_PDEATHSIG), kill_running_compiler() from a signal handler, and
//   a CPU-time limit of about `timeout_s` that its own children inherit
//   (RLIMIT_CPU), so that no orphan outlives the limit;
// - its address space is bounded by `memory_bytes` (RLIMIT_AS), so that
//   `--memory` bounds the compiler too;
// - it never throws on the compiler's behaviour; the call returns when the
//   compiler and its output have ended or it was stopped.
// One compiler at a time per process (the step is compiled once, before any
// work); run_compiler() is not meant to be called from two threads at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace ddsmc::engine {

struct CompilerLimits {
  double timeout_s = 60;                         // 0: none
  uint64_t memory_bytes = 0;                     // 0: none
  const std::atomic<unsigned>* stop = nullptr;  // nonzero: stop now
};

struct CompilerRun {
  enum class End { Exited, Signalled, TimedOut, Stopped, NotStarted };
  End end = End::NotStarted;
  int code = 0;        // the exit status (Exited), the signal (Signalled), errno (NotStarted)
  std::string output;  // stdout and stderr, the first 64 KiB
  bool ok() const { return end == End::Exited && code == 0; }
};

CompilerRun run_compiler(const std::vector<std::string>& argv, const CompilerLimits& limits);

// Kills the compiler run_compiler() is running, if any. Async-signal-safe:
// for a signal handler that is about to end the process.
void kill_running_compiler() noexcept;

// Why a compile failed, in the user's terms, and whether it is a fault of
// ddsmc's generated code (a diagnostic in `source` that no resource or
// environment explains) rather than of the machine (a missing assembler, a
// full disk, memory, a limit of the compiler, a timeout, a signal).
struct CompileFailure {
  std::string message;
  bool ddsmc_bug = false;
};
CompileFailure explain_compile_failure(const CompilerRun& run, const std::string& compiler, const std::string& source,
                                       const CompilerLimits& limits);

}  // namespace ddsmc::engine
