// A saved trace file read back for `replay` and `view`: the file as JSON,
// the model it was recorded on (the --network and bounds the file records,
// unless the command line says otherwise), its traces parsed, and each
// trace re-executed with replay's checks and its one line of verdict.
#pragma once

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "app/trace_json.hpp"
#include "engine/d2c/compile.hpp"
#include "model/load.hpp"

namespace ddsmc::app {

struct TraceFile {
  nlohmann::json doc;
  std::unique_ptr<model::Model> model;         // (cm points into it)
  std::optional<engine::CompiledModel> cm;
  std::vector<ParsedTrace> traces;             // at least one
};

// Reads `path` and loads the model: 0, or kExitUsage after saying why on
// stderr (the file unreadable, not JSON, not traces of this model, or no
// trace in it; a model error with file:line:column).
int load_trace_file(const ModelOptions& model, const std::string& path, TraceFile& out);

// Replays `t` (engine::replay) and prints its line to `to`: what replays
// and what holds, or what is wrong and what the program computes instead.
// True when it replays and its claim holds; `run`, when given, receives
// the replayed run.
bool replay_trace(const engine::CompiledModel& cm, const ParsedTrace& t, std::FILE* to,
                  engine::ConcreteRun* run = nullptr);

}  // namespace ddsmc::app
