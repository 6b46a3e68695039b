// Reading traces back from JSON (the inverse of report.cpp's run_to_json),
// for `ddsmc replay`. Constants are looked up by spelling; #k names the k-th
// fresh constant of the run.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/replay.hpp"

namespace ddsmc::app {

struct ParsedTrace {
  std::string label;  // "sometimes-total witness", "bound", ...
  std::vector<engine::ReplayStep> steps;
  std::optional<size_t> loop_start;
  std::optional<std::vector<std::vector<engine::Word>>> initial;  // per node, when recorded
};

// Every trace in a file written by --trace, by --json, or a bare trace.
// Returns false with a message in `error` when the JSON does not fit.
bool parse_traces(const engine::CompiledModel& cm, const nlohmann::json& doc, std::vector<ParsedTrace>& out,
                  std::string& error);

}  // namespace ddsmc::app
