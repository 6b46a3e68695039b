// ddsmc: command-line entry point. Parses the command line (CLI11) and hands
// over to one subcommand; usage errors exit with code 2.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <string>

#include "app/commands.hpp"
#include "app/checkpointing.hpp"
#include "app/memory_limit.hpp"
#include "app/output.hpp"
#include "app/runtime.hpp"
#include "engine/placement.hpp"
#include "engine/workers.hpp"

namespace {

using ddsmc::app::ModelOptions;

// The emergency reserve (app/runtime.hpp): enough to unwind, analyse what
// fits and write a report once memory runs out.
constexpr size_t kMemoryReserve = size_t{64} << 20;

// CLI11 converts "-1" to an unsigned 64-bit option by wrapping it to 2^64 - 1
// (so `simulate --steps -1` never ends), and 2^64 + 1 to 1: an unsigned
// option takes decimal digits only, and a value beyond 2^64 - 1 is refused.
std::string unsigned_error(const std::string& value) {
  if (value.find('-') != std::string::npos) return "must not be negative, got '" + value + "'";
  if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos)
    return "must be a whole number, got '" + value + "'";
  uint64_t n = 0;
  if (std::from_chars(value.data(), value.data() + value.size(), n).ec != std::errc())
    return "too large (at most 18446744073709551615), got '" + value + "'";
  return {};
}
const CLI::Validator kUnsigned(unsigned_error, "UINT");

// --threads: a whole number, at most ddsmc::engine::max_threads() (a
// million threads would take the memory and the time of the check).
std::string threads_error(const std::string& value) {
  if (std::string e = unsigned_error(value); !e.empty()) return e;
  const size_t cores = ddsmc::engine::hardware_threads(), most = ddsmc::engine::max_threads();
  if (std::stoull(value) > most)
    return fmt::format("at most {} ({} per CPU this process may use, of which there are {}), got {}", most,
                       ddsmc::engine::kThreadsPerCpu, cores, value);
  return {};
}

// The model path and the overrides shared by the commands that load a model.
void add_model_options(CLI::App& cmd, ModelOptions& opts, bool with_bounds) {
  cmd.add_option("MODEL", opts.path, "the .d2c model file")->required();
  cmd.add_option("--network", opts.overrides.network_spec,
                 "network: ring:N line:N star:N complete:N grid:RxC tree:N random:N:D:SEED or an edge-list file");
  if (!with_bounds) return;
  // CLI::Number: an empty value (`--state-bound "$UNSET"`) is an error, not "unbounded".
  cmd.add_option("--input-bound", opts.overrides.input_bound, "at most N facts per input DB")->check(CLI::Number);
  cmd.add_option("--state-bound", opts.overrides.state_bound, "at most N distinct constants per node DB")
      ->check(CLI::Number);
  cmd.add_option("--channel-bound", opts.overrides.channel_bound, "at most N payloads per channel")
      ->check(CLI::Number);
}


int run(int argc, char** argv) {
  CLI::App app{"ddsmc: explicit-state model checker for declarative distributed systems (D2C)", "ddsmc"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ddsmc 0.1.0");

  ModelOptions lint_opts;
  CLI::App* lint = app.add_subcommand("lint", "static checks only: parse, resolve, print a summary");
  add_model_options(*lint, lint_opts, true);

  ddsmc::app::CheckOptions check_opts;
  CLI::App* check = app.add_subcommand("check", "explore the state space and decide the convergence properties");
  add_model_options(*check, check_opts.model, true);
  check->add_option("--property", check_opts.property, "all, sometimes-total, sometimes-partial, always-total or always-partial")
      ->check(CLI::IsMember({"all", "sometimes-total", "sometimes-partial", "always-total", "always-partial"}));
  check->add_option("--fairness", check_opts.fairness, "channel (reliable channels are served) or none")
      ->check(CLI::IsMember({"channel", "none"}));
  check->add_option("--on-bound", check_opts.on_bound, "stop at a state beyond the bounds, or prune such states")
      ->check(CLI::IsMember({"stop", "prune"}));
  check->add_option("--threads", check_opts.threads, "worker threads (0: every CPU the process may use)")
      ->check(CLI::Validator(threads_error, "N"));
  check->add_option("--partition-key", check_opts.partition_key,
                    "under MPI, which parts of a state decide its rank: every node's DB and every K-th channel "
                    "(nodes+arcs/K, default nodes+arcs/3), all (every part) or nodes (no channel)")
      ->check(CLI::Validator(
          [](std::string& s) {
            return ddsmc::engine::PlacementRule::parse(s) ? std::string()
                                                          : "not a partition key (all, nodes, nodes+arcs/K): " + s;
          },
          "RULE"));
  check->add_option("--symmetry", check_opts.symmetry,
                    "auto (the default): explore up to the network's automorphisms that fix the initial state and "
                    "every node the rules name (one state per orbit; verdicts and traces as without it), or none")
      ->check(CLI::IsMember({"auto", "none"}));
  check->add_option("--backend", check_opts.backend,
                    "how steps are evaluated: compiled (the model's rules as C++, compiled and cached), "
                    "interpreted, or auto (compiled when a compiler is found; the default)")
      ->check(CLI::IsMember({"interpreted", "compiled", "auto"}));
  check->add_option("--memory", check_opts.memory,
                    "stop (exit 3) before the process uses more than LIMIT bytes: 16G, 512M, ... "
                    "(default: 85% of physical memory or of the cgroup limit)")
      ->check(CLI::Validator(
          [](std::string& s) {
            return ddsmc::app::parse_memory_size(s) ? std::string() : "not a memory size (16G, 512M, 1.5G, ...): " + s;
          },
          "SIZE"));
  check->add_option("--scratch", check_opts.scratch,
                    "directory for the state graph's edges, roots and labels on disk, or none to keep them in memory "
                    "(default: $TMPDIR, else /tmp, unless it is in RAM: a tmpfs)");
  check->add_option("--checkpoint", check_opts.checkpoint,
                    "write a checkpoint to DIR when a signal or the memory limit stops the exploration "
                    "(and every --checkpoint-every)");
  check->add_option("--checkpoint-every", check_opts.checkpoint_every,
                    "also write one every DURATION of exploration: 90s, 15m, 2h (needs --checkpoint)")
      ->check(CLI::Validator(
          [](std::string& s) {
            return ddsmc::app::parse_duration(s) ? std::string() : "not a duration (90s, 15m, 2h, ...): " + s;
          },
          "DURATION"));
  check->add_option("--resume", check_opts.resume, "go on from the checkpoint in DIR (the same check's)");
  check->add_option("--max-states", check_opts.max_states, "stop after this many states (0: no limit)")->check(kUnsigned);
  check->add_option("--json", check_opts.json_path, "write the report as JSON to FILE (- for stdout)");
  check->add_option("--trace", check_opts.trace_path, "write every trace, in full, as JSON to FILE");
  check->add_option("--html", check_opts.html_path,
                    "write the report and a message-sequence chart of every trace as one self-contained HTML page "
                    "to FILE (- for stdout)");
  check->add_option("--dot", check_opts.dot_path,
                    "write the explored state graph in Graphviz's DOT to FILE: states with their DBs and channels, "
                    "edges with the channel served, fair SCCs and stable edges marked (one process only)");
  check->add_option("--dot-max-states", check_opts.dot_max_states,
                    "--dot draws graphs of at most N states (default 2000); larger ones are refused")
      ->check(kUnsigned);
  check->add_option("--trace-steps", check_opts.trace_steps, "steps of each trace shown on stdout (0: all)")
      ->check(kUnsigned);
  check->add_flag("--show-witnesses", check_opts.show_witnesses, "print witness runs, not only counterexamples");

  ddsmc::app::SimulateOptions sim_opts;
  CLI::App* simulate = app.add_subcommand("simulate", "print one random run");
  add_model_options(*simulate, sim_opts.model, true);
  simulate->add_option("--steps", sim_opts.steps, "at most N steps (default 100)")->check(kUnsigned);
  simulate->add_option("--seed", sim_opts.seed, "random seed (default 1)")->check(kUnsigned);
  simulate->add_option("--trace", sim_opts.trace_path, "also write the run as JSON to FILE (replayable)");

  ddsmc::app::ReplayOptions replay_opts;
  CLI::App* replay = app.add_subcommand("replay", "re-execute a saved trace step by step and check it");
  add_model_options(*replay, replay_opts.model, true);
  replay->add_option("TRACE", replay_opts.trace_path, "a trace file (--trace or --json output of check)")->required();

  ddsmc::app::ViewOptions view_opts;
  CLI::App* view = app.add_subcommand(
      "view", "draw a saved trace file's runs as message-sequence charts (after replay's checks)");
  add_model_options(*view, view_opts.model, true);
  view->add_option("TRACE", view_opts.trace_path, "a trace file (--trace or --json of check, --trace of simulate)")
      ->required();
  view->add_option("--html", view_opts.html_path, "write every trace's chart as one self-contained HTML page to FILE");
  view->add_option("--svg", view_opts.svg_path, "write one trace's chart as an SVG file to FILE");
  view->add_option("--index", view_opts.index, "the trace --svg draws, from 1 (needed when the file holds several)")
      ->check(kUnsigned);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : ddsmc::app::kExitUsage;
  }

  try {
    if (lint->parsed()) return ddsmc::app::run_lint(lint_opts);
    if (check->parsed()) return ddsmc::app::run_check(check_opts);
    if (simulate->parsed()) return ddsmc::app::run_simulate(sim_opts);
    if (replay->parsed()) return ddsmc::app::run_replay(replay_opts);
    if (view->parsed()) return ddsmc::app::run_view(view_opts);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "ddsmc: out of memory; the check is incomplete\n");
    return ddsmc::app::kExitIncomplete;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ddsmc: internal error: %s\n", e.what());
    return ddsmc::app::kExitIncomplete;
  }
  return ddsmc::app::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  ddsmc::app::install_process_guards(kMemoryReserve);
  int code = run(argc, argv);
  // Standard output is part of the result: a failed write, flush or close
  // means it was not delivered.
  if (!ddsmc::app::Output::standard().deliver() && code != ddsmc::app::kExitUsage) code = ddsmc::app::kExitIncomplete;
  return code;
}
