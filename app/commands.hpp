// The subcommands of the ddsmc binary. Each returns the process exit code
// (docs/reference.md §6: 0 holds, 1 fails, 2 usage or model error, 3 incomplete).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/resolve.hpp"

namespace ddsmc::app {

inline constexpr int kExitHolds = 0;
inline constexpr int kExitFails = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitIncomplete = 3;

// Options every command that loads a model shares.
struct ModelOptions {
  std::string path;
  model::Overrides overrides;
};

struct CheckOptions {
  ModelOptions model;
  std::string property = "all";
  std::string fairness = "channel";
  std::string on_bound = "stop";
  size_t threads = 0;
  std::string partition_key = "nodes+arcs/3";  // --partition-key (engine::PlacementRule)
  std::string backend = "auto";          // --backend interpreted|compiled|auto
  std::string symmetry = "auto";         // --symmetry auto|none (network symmetry, issue 23)
  std::optional<std::string> memory;     // --memory LIMIT (default: default_memory_limit())
  std::optional<std::string> scratch;    // --scratch DIR|none (default: $TMPDIR, else /tmp, unless in RAM)
  uint64_t max_states = 0;
  std::optional<std::string> json_path;   // "-" for stdout
  std::optional<std::string> trace_path;  // all traces as JSON
  std::optional<std::string> html_path;   // the report and every trace's chart as one HTML page
  std::optional<std::string> dot_path;    // the state graph in DOT (app/dot_graph)
  uint64_t dot_max_states = 2000;         // --dot-max-states: larger graphs are not drawn
  size_t trace_steps = 20;                // steps shown per trace on stdout (0: all)
  bool show_witnesses = false;            // print witness runs too, not only counterexamples
  std::optional<std::string> checkpoint;        // --checkpoint DIR
  std::optional<std::string> checkpoint_every;  // --checkpoint-every DURATION
  std::optional<std::string> resume;            // --resume DIR
};

struct ReplayOptions {
  ModelOptions model;
  std::string trace_path;
};

struct ViewOptions {
  ModelOptions model;
  std::string trace_path;
  std::optional<std::string> html_path;  // every trace's chart in one page
  std::optional<std::string> svg_path;   // one trace's chart
  size_t index = 0;                      // the trace --svg draws, from 1 (0: the only one)
};

struct SimulateOptions {
  ModelOptions model;
  uint64_t steps = 100;
  uint64_t seed = 1;
  std::optional<std::string> trace_path;
};

int run_lint(const ModelOptions& opts);
int run_replay(const ReplayOptions& opts);
int run_simulate(const SimulateOptions& opts);
int run_check(const CheckOptions& opts);
int run_view(const ViewOptions& opts);

}  // namespace ddsmc::app
