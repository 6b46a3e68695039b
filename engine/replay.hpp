// Re-executing a recorded run step by step (`ddsmc replay`): each step must
// be legal in the model (the channel holds the payload, the input fits the
// bound, some choice outcome has exactly the recorded effect), and a lasso
// must close up to renaming of fresh constants.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/compile.hpp"
#include "engine/successors.hpp"

namespace ddsmc::engine {

struct ReplayStep {
  bool idle = false;
  uint32_t arc = 0;
  std::vector<Word> payload;         // [pred, args...]
  std::vector<Word> input;           // input facts
  std::vector<Word> added, removed;  // facts of the processing node's DB
  std::vector<Word> sent;            // [dest node, pred, args...]*
  std::optional<bool> stable;        // as recorded; must match the DB change
};

struct ReplayResult {
  bool ok = true;
  size_t steps_ok = 0;          // steps that replayed before the first problem
  std::string problem;          // what is wrong with step `steps_ok` (or with the loop)
  // For a step whose effect no outcome produces: what the first outcome does.
  std::optional<ReplayStep> computed;
};

// `initial`, when given, is each node's recorded initial DB (built-ins
// excluded) and must be the model's initial state.
ReplayResult replay(const CompiledModel& cm, const std::vector<ReplayStep>& steps, std::optional<size_t> loop_start,
                    const std::vector<std::vector<Word>>* initial = nullptr);

}  // namespace ddsmc::engine
