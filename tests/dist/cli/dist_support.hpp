// Helpers of the distributed CLI tests: `ddsmc check` run as one process and
// under `mpiexec -np R`, the two runs' outputs compared field by field, and
// the processes an mpiexec started (to kill one rank, and to make sure none
// is left behind).
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/app/cli_support.hpp"
#include "tests/test_support.hpp"

namespace ddsmc::test {

// Every mpiexec run here is small; a run that takes this long hangs.
inline constexpr double kMpiTimeout = 120;

std::string mpiexec();
// mpiexec --oversubscribe --allow-run-as-root -np NP [ddsmc ARGS...]; the
// launcher in a process group of its own with stdin from /dev/null.
std::vector<std::string> mpiexec_args(int np, const std::vector<std::string>& ddsmc_args);
CliResult run_mpi(int np, const std::vector<std::string>& ddsmc_args, double timeout = kMpiTimeout);
// `mpiexec_options` go before the ranks' command (e.g. an --mca setting).
Spawned spawn_mpi(int np, const std::vector<std::string>& ddsmc_args,
                  const std::vector<std::string>& mpiexec_options = {});

// How a distributed run is started: ranks and --threads per rank.
struct Layout {
  int ranks = 1;
  int threads = 1;
  std::string name() const { return "np " + std::to_string(ranks) + ", --threads " + std::to_string(threads); }
};

// The standard set: 1, 2, 3 and 4 ranks at one thread, 2 ranks at two.
std::vector<Layout> all_layouts();

// `ddsmc check ARGS --json J --trace T`, as one process or under mpiexec.
struct CheckRun {
  std::string what;  // "single process" or the layout
  CliResult run;
  nlohmann::json report;  // null when the file is missing or not one JSON document
  nlohmann::json traces;
  std::string trace_path;
};

// threads > 0 adds --threads THREADS (default: every core).
CheckRun check_single(const std::vector<std::string>& args, int threads = 0);
CheckRun check_mpi(const Layout& layout, const std::vector<std::string>& args);

// The JSON without its timing and statistics fields (`stats`, any `seconds`),
// which are all that may differ between two runs of one check.
nlohmann::json without_stats(nlohmann::json j);
// The text report with its durations ("0.02 s") blanked out.
std::string without_times(const std::string& text);

// The distributed run gives exactly the single-process result: exit code,
// states, transitions, complete / incomplete_reason, within_bounds,
// bound_exceeded (trace included), every property's verdict and trace, the
// whole report and --trace file but for the statistics, and the text report
// but for durations. Then the statistics the distributed run adds (ranks,
// bytes_sent, rank_states), when present. `model` is replayed with the
// distributed run's trace file unless it is empty.
void expect_same_check(const CheckRun& single, const CheckRun& dist, const Layout& layout,
                       const std::string& model);

// Runs `args` once as a single process and once per layout, comparing each
// distributed run with the single one; returns the single-process run.
CheckRun expect_same_everywhere(const std::vector<std::string>& args, const std::vector<Layout>& layouts);

// A process as /proc shows it.
struct ProcessInfo {
  pid_t pid = 0;
  pid_t parent = 0;
  pid_t group = 0;
  char state = '?';
  unsigned long long start_time = 0;  // clock ticks after boot: tells a reused pid apart
};
bool process_info(pid_t pid, ProcessInfo& info);
// Every live descendant of `root` (children, their children, ...).
std::vector<ProcessInfo> descendants(pid_t root);
// argv[0] of a process, "" when unreadable.
std::string process_argv0(pid_t pid);
// The value of environment variable `name` of a process, "" when absent.
std::string process_env(pid_t pid, const std::string& name);
// Still running (not gone, not a zombie) and still the same process.
bool still_running(const ProcessInfo& p);

}  // namespace ddsmc::test
