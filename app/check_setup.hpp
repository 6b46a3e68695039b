// The start of `ddsmc check` on its processes (engine::Processes: this one,
// or the ranks of an MPI job), before any work: the model loaded and every
// process checking the same thing, the checkpoint options, the checkpoint
// directory's lock and the checkpoint to resume checked, the step evaluator
// chosen, every output opened. Each step that could end the run is agreed on
// (the worst code over the processes), so that all of them go on or none;
// rank 0 alone prints (the others' failures are its messages) and opens the
// outputs.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/checkpointing.hpp"
#include "app/commands.hpp"
#include "app/output.hpp"
#include "app/step_backend.hpp"
#include "engine/analysis.hpp"
#include "engine/backend.hpp"
#include "engine/d2c/compile.hpp"
#include "engine/spill_file.hpp"
#include "hashing/symmetry.hpp"
#include "model/load.hpp"

namespace ddsmc::app {

struct CheckSetup {
  std::optional<model::Model> model;
  std::vector<engine::Property> properties;
  std::optional<Checkpointing> checkpoints;
  uint64_t memory_limit = 0;  // --memory in bytes, this process's share of the machine by default
  // --scratch: where the graph's write-once parts go (nullptr: they stay
  // in memory, `scratch_note` says why), and what that directory is on.
  std::shared_ptr<engine::SpillFile> spill;
  std::optional<engine::ScratchInfo> scratch;
  std::string scratch_note;
  std::optional<engine::CompiledModel> compiled;
  std::optional<StepBackend> step;  // the evaluator of the model's steps
  // --backend auto on a cache miss (one process): the compile running in the
  // background, until the exploration takes its step (declared after
  // `compiled`, which it reads: destroyed first).
  std::unique_ptr<BackgroundStep> background;
  uint64_t compiled_from_state = 0;  // the states explored before the switch to it (0: none)
  // --symmetry auto: the group the state space is explored up to (null:
  // none, or a trivial group).
  std::shared_ptr<const hashing::SymmetryGroup> symmetry;
  std::vector<std::string> symmetry_generators;  // in cycle notation
  std::vector<std::unique_ptr<Output>> files;
  Output* json_out = nullptr;   // --json (rank 0)
  Output* trace_out = nullptr;  // --trace (rank 0)
  Output* html_out = nullptr;   // --html (rank 0)
  Output* dot_out = nullptr;    // --dot (one process only)
};

// Collective: 0 when the check can start (`s` filled), else the exit code
// (kExitUsage) on every process, with the message printed.
int start_check(const CheckOptions& opts, const engine::Processes& processes, CheckSetup& s);

}  // namespace ddsmc::app
